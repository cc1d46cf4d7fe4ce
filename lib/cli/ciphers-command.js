// @ts-check
import { nearestHint } from '../nearest-name.js';
import { legacyProviderStatus } from '../crypto/legacy-provider.js';
import { chainLabel } from '../chain/label.js';
import { chainNeedsLegacyProvider } from '../chain/requirements.js';
import { loadCatalogue } from '../presets/registry.js';
import { validateChain } from '../chain/validate.js';
import { formatCipherTable } from '../report/cipher-table.js';
import { DEFAULT_SIZES } from '../ceiling/cipher-ceiling.js';
import { measureCeilingRounds, newSeed } from '../ceiling/cipher-rounds.js';
import { createStepProgress } from '../report/progress.js';
import { useColor } from '../report/terminal.js';
import { exitCodeForSignal, inputError } from '../errors.js';
import { STOP_SIGNALS } from './early-signals.js';

// Every Shadowsocks method, with the shortest chain that carries it, read
// from the preset catalogue: each ss- cipher preset's methods behind the ss
// address preset (ss-base), then those of the ones that carry the address
// themselves (ss-2022), alone.
function methodChains(catalogue) {
  const ssPresets = catalogue.all().filter((preset) => preset.name.startsWith('ss-'));
  const carriesAddress = (preset) => preset.roles.includes('address');
  const ciphers = ssPresets.filter((preset) => preset.roles.includes('cipher'));
  const address = ssPresets.find((preset) => carriesAddress(preset) && !ciphers.includes(preset));
  return new Map(
    [...ciphers.filter((preset) => !carriesAddress(preset)), ...ciphers.filter(carriesAddress)].flatMap((preset) =>
      preset.params.method.values.map((method) => {
        const cipher = { name: preset.name, params: { method } };
        return [method, carriesAddress(preset) ? [cipher] : [{ name: address.name }, cipher]];
      }),
    ),
  );
}

export function registerCiphersCommand(program) {
  program
    .command('ciphers')
    .description(
      'in-process encrypt and decrypt throughput of every method (or of the chains given) through the preset code, per core and read size: the ceiling a relay can reach',
    )
    .option(
      '--size <sizes>',
      'read sizes, comma-separated (k = 1024)',
      DEFAULT_SIZES.map((s) => `${s / 1024}k`).join(','),
    )
    .option('--methods <methods>', 'methods to measure, comma-separated (default: all)')
    .option(
      '--chain <json>',
      'a preset chain to measure instead, as cases.js writes one (repeatable)',
      (value, all) => [...all, value],
      [],
    )
    .option('--time <seconds>', 'CPU seconds to spend on each method, size and direction, over all rounds', '0.5')
    .option(
      '--rounds <n>',
      'rounds, each measuring every method once in a new random order; the figure is their median',
      '5',
    )
    .option('--seed <n>', "the seed of the rounds' order (default: a new one, printed)")
    .option('--json', 'print JSON instead of the table')
    .action(async (options) => {
      const sizes = parseSizes(options.size);
      const seconds = Number(options.time);
      if (!(seconds > 0 && seconds <= 60))
        throw inputError(`--time must be a number of seconds between 0 and 60, got ${JSON.stringify(options.time)}`);
      const rounds = wholeNumber('--rounds', options.rounds, 1, 100);
      const seed = options.seed === undefined ? newSeed() : wholeNumber('--seed', options.seed, 0, 2 ** 32 - 1);
      if (options.chain.length > 0 && options.methods) throw inputError('--chain and --methods: give one or the other');
      // Minutes of measurement: a signal stops it between two steps, and
      // what was measured by then is printed, marked incomplete.
      const controller = new AbortController();
      const onSignal = (name) => controller.signal.aborted || controller.abort(name);
      for (const name of STOP_SIGNALS) process.on(name, onSignal);
      const catalogue = await loadCatalogue();
      const plan = { sizes, seconds, rounds, seed, signal: controller.signal, catalogue };
      const chains = methodChains(catalogue);
      const measured =
        options.chain.length > 0
          ? await measureChains(
              options.chain.map((text) => parseChain(catalogue, text)),
              plan,
            )
          : await measureMethods(parseMethods(chains, options.methods), chains, plan);
      const interrupted = controller.signal.aborted ? controller.signal.reason : null;
      const ceilings = measured.filter((row) => row.sizes !== null);
      if (options.json) {
        const incomplete = interrupted ? { complete: false, interrupted, notMeasured: notMeasured(measured) } : {};
        process.stdout.write(`${JSON.stringify({ rounds, seed, ...incomplete, ceilings }, null, 2)}\n`);
      } else {
        const table = ceilings.length > 0 ? `${formatCipherTable(ceilings)}\n\n` : '';
        process.stdout.write(
          `${table}${roundsNote(plan)}\n${interrupted ? `${incompleteNote(interrupted, measured)}\n` : ''}`,
        );
      }
      if (interrupted) process.exitCode = exitCodeForSignal(interrupted);
    });
}

const rowName = (row) => row.method ?? row.label;
const notMeasured = (rows) => rows.filter((row) => row.sizes === null).map(rowName);

// An interrupted run's figures are the rounds each method had by then.
function incompleteNote(signal, rows) {
  const missing = notMeasured(rows);
  return (
    `INCOMPLETE: interrupted by ${signal}; each figure is the median of the rounds its method had by then` +
    (missing.length > 0 ? `; not measured: ${missing.join(', ')}` : '')
  );
}

function roundsNote({ rounds, seed }) {
  return (
    `Median of ${rounds} ${rounds === 1 ? 'round' : 'rounds'} after a warm-up, (min…max) of the rounds, in CPU seconds of one core; ` +
    `each round in a new random order (--seed ${seed} repeats it), so listing order does not change the figures.`
  );
}

function wholeNumber(flag, text, low, high) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < low || value > high)
    throw inputError(`${flag} takes a whole number from ${low} to ${high}, got ${JSON.stringify(text)}`);
  return value;
}

function parseMethods(chains, text) {
  const methods = text ? text.split(',') : [...chains.keys()];
  const unknown = methods.filter((method) => !chains.has(method));
  if (unknown.length)
    throw inputError(
      `--methods: unknown ${unknown.join(', ')}${nearestHint(unknown[0], [...chains.keys()])}; valid: ${[...chains.keys()].join(', ')}`,
    );
  return methods;
}

function parseChain(catalogue, text) {
  let presets;
  try {
    presets = JSON.parse(text);
  } catch (error) {
    throw inputError(`--chain: not JSON (${error.message}): ${text}`);
  }
  const [problem] = validateChain(catalogue, presets);
  if (problem) throw inputError(`--chain ${text}: ${problem.field}: ${problem.message}`);
  return presets;
}

function parseSizes(text) {
  return text.split(',').map((part) => {
    const match = /^(\d+)(k?)$/i.exec(part.trim());
    const size = match ? Number(match[1]) * (match[2] ? 1024 : 1) : NaN;
    if (!(size >= 1 && size <= 16 * 1024 * 1024))
      throw inputError(`--size: ${JSON.stringify(part)} is not a size like 1k, 16k or 1500`);
    return size;
  });
}

async function measureMethods(methods, chains, plan) {
  const rows = await measureChains(
    methods.map((method) => chains.get(method)),
    plan,
    methods,
  );
  return rows.map(({ sizes: measured }, i) => ({ method: methods[i], sizes: measured }));
}

// A chain carrying rc4-md5 or bf-cfb needs OpenSSL's legacy provider, which
// is chosen when node starts: those are measured in a child started with the
// flag, interleaved among themselves; the rest here, among themselves.
// Rows of chains not reached before `signal` aborted have sizes null.
// `names` are what the progress line calls the chains.
async function measureChains(chains, plan, names = chains.map(chainLabel)) {
  const legacy =
    legacyProviderStatus() === 'loaded'
      ? []
      : chains.filter((chain) => chainNeedsLegacyProvider(plan.catalogue, chain));
  const here = chains.filter((presets) => !legacy.includes(presets));
  const nameOf = (presets) => names[chains.indexOf(presets)];
  // Each chain here is warmed up, then measured once a round; the child
  // says only its rounds.
  const progress = createStepProgress({
    total: here.length * (plan.rounds + 1) + legacy.length * plan.rounds,
    color: useColor(process.stderr, {}),
  });
  const roundStep = (round, position, at) =>
    progress.step(`round ${round + 1}/${plan.rounds}: ${nameOf(here[at])} (${position + 1}/${here.length})`);
  // The child says where in a round it is, not which chain.
  const childStep = (position, round) =>
    progress.step(
      `round ${round + 1}/${plan.rounds}: ${legacy.map(nameOf).join(', ')} in a child (${position + 1}/${legacy.length})`,
    );
  const measured =
    here.length > 0 && !plan.signal.aborted
      ? await measureCeilingRounds(here, {
          ...plan,
          onStep: roundStep,
          onWarmUp: (at) => progress.step(`warm-up: ${nameOf(here[at])} (${at + 1}/${here.length})`),
        })
      : here.map(() => ({ sizes: null }));
  // After the methods here, most of them: a stop while the child measures
  // keeps theirs (the child says its rows only once all its rounds are done).
  const fromChild =
    legacy.length > 0 && !plan.signal.aborted
      ? await measureInLegacyChild(legacy, { ...plan, onChain: childStep })
      : legacy.map(() => ({ sizes: null }));
  progress.stop();
  return chains.map((presets) => {
    const row = legacy.includes(presets) ? fromChild[legacy.indexOf(presets)] : measured[here.indexOf(presets)];
    return { presets, label: chainLabel(presets), sizes: row?.sizes ?? null };
  });
}

async function measureInLegacyChild(chains, { sizes, seconds, rounds, seed, signal, onChain }) {
  try {
    // Loaded only here: the process contract (execa) is not for every
    // command this CLI runs, least of all the relays.
    const { measureChainsInChild } = await import('../ceiling/ceilings-in-child.js');
    const rows = await measureChainsInChild(chains, { sizes, seconds, rounds, seed, legacy: true, signal, onChain });
    // In rounds the child says its rows only at the end: stopped, it has none.
    return chains.map((presets) => rows.find((row) => row.presets === presets) ?? { presets, sizes: null });
  } catch (error) {
    const labels = chains.map(chainLabel).join('; ');
    throw inputError(
      `${labels}: need OpenSSL's legacy provider, which this Node (OpenSSL ${process.versions.openssl}) could not load: ${error.message}`,
    );
  }
}
