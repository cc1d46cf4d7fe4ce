import { AEAD_2022_METHODS } from '../crypto/aead-2022-methods.js';
import { AEAD_METHODS } from '../crypto/aead-methods.js';
import { legacyProviderStatus } from '../crypto/legacy-provider.js';
import { STREAM_METHODS } from '../crypto/stream-methods.js';
import { chainLabel } from '../presets/chain-label.js';
import { chainNeedsLegacyProvider, validateChain } from '../presets/index.js';
import { formatCipherTable } from '../report/cipher-table.js';
import { DEFAULT_SIZES, measureChainsInChild, measureCipherCeiling } from '../runner/cipher-ceiling.js';
import { usageError } from './usage-error.js';

const METHODS = { ...STREAM_METHODS, ...AEAD_METHODS, ...AEAD_2022_METHODS };
const chainFor = (method) => {
  if (AEAD_2022_METHODS[method]) return [{ name: 'ss-2022', params: { method } }];
  return [{ name: 'ss-base' }, { name: AEAD_METHODS[method] ? 'ss-aead-cipher' : 'ss-stream-cipher', params: { method } }];
};

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
      if (!(seconds > 0 && seconds <= 60)) throw usageError(`--time must be a number of seconds between 0 and 60, got ${JSON.stringify(options.time)}`);
      if (options.chain.length > 0 && options.methods) throw usageError('--chain and --methods: give one or the other');
      const ceilings = options.chain.length > 0
        ? await measureChains(options.chain.map(parseChain), sizes, seconds)
        : await measureMethods(parseMethods(options.methods), sizes, seconds);
      process.stdout.write(options.json ? `${JSON.stringify(ceilings, null, 2)}\n` : `${formatCipherTable(ceilings)}\n`);
    });
}

function parseMethods(text) {
  const methods = text ? text.split(',') : Object.keys(METHODS);
  const unknown = methods.filter((method) => !METHODS[method]);
  if (unknown.length) throw usageError(`--methods: unknown ${unknown.join(', ')}; valid: ${Object.keys(METHODS).join(', ')}`);
  return methods;
}

function parseChain(text) {
  let presets;
  try {
    presets = JSON.parse(text);
  } catch (error) {
    throw usageError(`--chain: not JSON (${error.message}): ${text}`);
  }
  const [problem] = validateChain(presets);
  if (problem) throw usageError(`--chain ${text}: ${problem.field}: ${problem.message}`);
  return presets;
}

function parseSizes(text) {
  return text.split(',').map((part) => {
    const match = /^(\d+)(k?)$/i.exec(part.trim());
    const size = match ? Number(match[1]) * (match[2] ? 1024 : 1) : NaN;
    if (!(size >= 1 && size <= 16 * 1024 * 1024)) throw usageError(`--size: ${JSON.stringify(part)} is not a size like 1k, 16k or 1500`);
    return size;
  });
}

async function measureMethods(methods, sizes, seconds) {
  const rows = await measureChains(methods.map(chainFor), sizes, seconds);
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
    return await measureChainsInChild(chains, { sizes, seconds, legacy: true });
  } catch (error) {
    const labels = chains.map(chainLabel).join('; ');
    throw usageError(`${labels}: need OpenSSL's legacy provider, which this Node (OpenSSL ${process.versions.openssl}) could not load: ${error.message}`);
  }
}
