import { nearestHint } from '../nearest-name.js';
import { legacyProviderStatus } from '../crypto/legacy-provider.js';
import { chainLabel } from '../chain/label.js';
import { chainNeedsLegacyProvider } from '../chain/requirements.js';
import { PRESETS } from '../presets/index.js';
import { validateChain } from '../chain/validate.js';
import { formatCipherTable } from '../report/cipher-table.js';
import { DEFAULT_SIZES, measureCipherCeiling } from '../runner/cipher-ceiling.js';
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
    .option('--time <seconds>', 'CPU seconds to spend on each method, size and direction', '0.25')
    .option('--json', 'print JSON instead of the table')
    .action(async (options) => {
      const sizes = parseSizes(options.size);
      const seconds = Number(options.time);
      if (!(seconds > 0 && seconds <= 60)) throw inputError(`--time must be a number of seconds between 0 and 60, got ${JSON.stringify(options.time)}`);
      if (options.chain.length > 0 && options.methods) throw inputError('--chain and --methods: give one or the other');
      const ceilings = options.chain.length > 0
        ? await measureChains(options.chain.map(parseChain), sizes, seconds)
        : await measureMethods(parseMethods(options.methods), sizes, seconds);
      process.stdout.write(options.json ? `${JSON.stringify(ceilings, null, 2)}\n` : `${formatCipherTable(ceilings)}\n`);
    });
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

async function measureMethods(methods, sizes, seconds) {
  const rows = await measureChains(methods.map((method) => CHAINS.get(method)), sizes, seconds);
  return rows.map(({ sizes: measured }, i) => ({ method: methods[i], sizes: measured }));
}

// A chain carrying rc4-md5 or bf-cfb needs OpenSSL's legacy provider, which
// is chosen when node starts: those are measured in a child started with the
// flag, all in one.
async function measureChains(chains, sizes, seconds) {
  const legacy = legacyProviderStatus() === 'loaded' ? [] : chains.filter(chainNeedsLegacyProvider);
  const fromChild = legacy.length > 0 ? await measureInLegacyChild(legacy, { sizes, seconds }) : [];
  const progress = process.stderr.isTTY ? (text) => process.stderr.write(`\r\x1b[2K${text}`) : () => {};
  const ceilings = chains.map((presets, i) => {
    const label = chainLabel(presets);
    progress(`measuring ${label} (${i + 1}/${chains.length})`);
    const child = legacy.includes(presets) ? fromChild[legacy.indexOf(presets)] : null;
    return { presets, label, sizes: child ? child.sizes : measureCipherCeiling({ presets, sizes, minSeconds: seconds }) };
  });
  progress('');
  return ceilings;
}

async function measureInLegacyChild(chains, { sizes, seconds }) {
  try {
    // Loaded only here: the process contract (execa) is not for every
    // command this CLI runs, least of all the relays.
    const { measureChainsInChild } = await import('../runner/ceilings-in-child.js');
    return await measureChainsInChild(chains, { sizes, seconds, legacy: true });
  } catch (error) {
    const labels = chains.map(chainLabel).join('; ');
    throw inputError(`${labels}: need OpenSSL's legacy provider, which this Node (OpenSSL ${process.versions.openssl}) could not load: ${error.message}`);
  }
}
