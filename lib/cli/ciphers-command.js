import { nearestHint } from '../nearest-name.js';
import { legacyProviderStatus } from '../crypto/legacy-provider.js';
import { chainLabel } from '../chain/label.js';
import { chainNeedsLegacyProvider } from '../chain/requirements.js';
import { PRESETS } from '../presets/index.js';
import { validateChain } from '../chain/validate.js';
import { formatCipherTable } from '../report/cipher-table.js';
import { DEFAULT_SIZES } from '../runner/cipher-ceiling.js';
import { measureCeilingRounds, newSeed } from '../runner/cipher-rounds.js';
import { inputError } from '../errors.js';

// Every Shadowsocks method, with the shortest chain that carries it, read
// from the preset catalogue: each ss- cipher preset's methods behind the ss
// address preset (ss-base), then those of the ones that carry the address
// themselves (ss-2022), alone.
const SS_PRESETS = Object.values(PRESETS).filter((preset) => preset.name.startsWith('ss-'));
const carriesAddress = (preset) => preset.roles.includes('address');
const ciphers = SS_PRESETS.filter((preset) => preset.roles.includes('cipher'));
const address = SS_PRESETS.find((preset) => carriesAddress(preset) && !ciphers.includes(preset));
const CHAINS = new Map([...ciphers.filter((preset) => !carriesAddress(preset)), ...ciphers.filter(carriesAddress)]
  .flatMap((preset) => preset.params.method.values.map((method) => {
    const cipher = { name: preset.name, params: { method } };
    return [method, carriesAddress(preset) ? [cipher] : [{ name: address.name }, cipher]];
  })));

export function registerCiphersCommand(program) {
  program
    .command('ciphers')
    .description('in-process encrypt and decrypt throughput of every method (or of the chains given) through the preset code, per core and read size: the ceiling a relay can reach')
    .option('--size <sizes>', 'read sizes, comma-separated (k = 1024)', DEFAULT_SIZES.map((s) => `${s / 1024}k`).join(','))
    .option('--methods <methods>', 'methods to measure, comma-separated (default: all)')
    .option('--chain <json>', 'a preset chain to measure instead, as cases.js writes one (repeatable)', (value, all) => [...all, value], [])
    .option('--time <seconds>', 'CPU seconds to spend on each method, size and direction, over all rounds', '0.5')
    .option('--rounds <n>', 'rounds, each measuring every method once in a new random order; the figure is their median', '5')
    .option('--seed <n>', 'the seed of the rounds\' order (default: a new one, printed)')
    .option('--json', 'print JSON instead of the table')
    .action(async (options) => {
      const sizes = parseSizes(options.size);
      const seconds = Number(options.time);
      if (!(seconds > 0 && seconds <= 60)) throw inputError(`--time must be a number of seconds between 0 and 60, got ${JSON.stringify(options.time)}`);
      const rounds = wholeNumber('--rounds', options.rounds, 1, 100);
      const seed = options.seed === undefined ? newSeed() : wholeNumber('--seed', options.seed, 0, 2 ** 32 - 1);
      if (options.chain.length > 0 && options.methods) throw inputError('--chain and --methods: give one or the other');
      const plan = { sizes, seconds, rounds, seed };
      const ceilings = options.chain.length > 0
        ? await measureChains(options.chain.map(parseChain), plan)
        : await measureMethods(parseMethods(options.methods), plan);
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ rounds, seed, ceilings }, null, 2)}\n`);
        return;
      }
      process.stdout.write(`${formatCipherTable(ceilings)}\n\n${roundsNote(plan)}\n`);
    });
}

function roundsNote({ rounds, seed }) {
  return `Median of ${rounds} ${rounds === 1 ? 'round' : 'rounds'} after a warm-up, (min…max) of the rounds, in CPU seconds of one core; `
    + `each round in a new random order (--seed ${seed} repeats it), so listing order does not change the figures.`;
}

function wholeNumber(flag, text, low, high) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < low || value > high) throw inputError(`${flag} takes a whole number from ${low} to ${high}, got ${JSON.stringify(text)}`);
  return value;
}

function parseMethods(text) {
  const methods = text ? text.split(',') : [...CHAINS.keys()];
  const unknown = methods.filter((method) => !CHAINS.has(method));
  if (unknown.length) throw inputError(`--methods: unknown ${unknown.join(', ')}${nearestHint(unknown[0], [...CHAINS.keys()])}; valid: ${[...CHAINS.keys()].join(', ')}`);
  return methods;
}

function parseChain(text) {
  let presets;
  try {
    presets = JSON.parse(text);
  } catch (error) {
    throw inputError(`--chain: not JSON (${error.message}): ${text}`);
  }
  const [problem] = validateChain(presets);
  if (problem) throw inputError(`--chain ${text}: ${problem.field}: ${problem.message}`);
  return presets;
}

function parseSizes(text) {
  return text.split(',').map((part) => {
    const match = /^(\d+)(k?)$/i.exec(part.trim());
    const size = match ? Number(match[1]) * (match[2] ? 1024 : 1) : NaN;
    if (!(size >= 1 && size <= 16 * 1024 * 1024)) throw inputError(`--size: ${JSON.stringify(part)} is not a size like 1k, 16k or 1500`);
    return size;
  });
}

async function measureMethods(methods, plan) {
  const rows = await measureChains(methods.map((method) => CHAINS.get(method)), plan);
  return rows.map(({ sizes: measured }, i) => ({ method: methods[i], sizes: measured }));
}

// A chain carrying rc4-md5 or bf-cfb needs OpenSSL's legacy provider, which
// is chosen when node starts: those are measured in a child started with the
// flag, interleaved among themselves; the rest here, among themselves.
async function measureChains(chains, plan) {
  const legacy = legacyProviderStatus() === 'loaded' ? [] : chains.filter(chainNeedsLegacyProvider);
  const here = chains.filter((presets) => !legacy.includes(presets));
  const progress = process.stderr.isTTY ? (text) => process.stderr.write(`\r\x1b[2K${text}`) : () => {};
  const onStep = (group) => (round, position, at) => progress(`round ${round + 1}/${plan.rounds}: ${chainLabel(group[at])} (${position + 1}/${group.length})`);
  const fromChild = legacy.length > 0 ? await measureInLegacyChild(legacy, plan) : [];
  const measured = here.length > 0 ? measureCeilingRounds(here, { ...plan, onStep: onStep(here) }) : [];
  progress('');
  return chains.map((presets) => {
    const row = legacy.includes(presets) ? fromChild[legacy.indexOf(presets)] : measured[here.indexOf(presets)];
    return { presets, label: chainLabel(presets), sizes: row.sizes };
  });
}

async function measureInLegacyChild(chains, { sizes, seconds, rounds, seed }) {
  try {
    // Loaded only here: the process contract (execa) is not for every
    // command this CLI runs, least of all the relays.
    const { measureChainsInChild } = await import('../runner/ceilings-in-child.js');
    return await measureChainsInChild(chains, { sizes, seconds, rounds, seed, legacy: true });
  } catch (error) {
    const labels = chains.map(chainLabel).join('; ');
    throw inputError(`${labels}: need OpenSSL's legacy provider, which this Node (OpenSSL ${process.versions.openssl}) could not load: ${error.message}`);
  }
}
