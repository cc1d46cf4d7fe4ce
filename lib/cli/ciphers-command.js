import { AEAD_2022_METHODS } from '../crypto/aead-2022-methods.js';
import { AEAD_METHODS } from '../crypto/aead-methods.js';
import { legacyProviderStatus } from '../crypto/legacy-provider.js';
import { STREAM_METHODS } from '../crypto/stream-methods.js';
import { formatCipherTable } from '../report/cipher-table.js';
import { DEFAULT_SIZES, measureCipherCeiling, measureMethodsInLegacyChild } from '../runner/cipher-ceiling.js';
import { usageError } from './usage-error.js';

const METHODS = { ...STREAM_METHODS, ...AEAD_METHODS, ...AEAD_2022_METHODS };
const chainFor = (method) => {
  if (AEAD_2022_METHODS[method]) return [{ name: 'ss-2022', params: { method } }];
  return [{ name: 'ss-base' }, { name: AEAD_METHODS[method] ? 'ss-aead-cipher' : 'ss-stream-cipher', params: { method } }];
};

export function registerCiphersCommand(program) {
  program
    .command('ciphers')
    .description('in-process encrypt and decrypt throughput of every method through the preset code, per core and read size: the ceiling a relay can reach')
    .option('--size <sizes>', 'read sizes, comma-separated (k = 1024)', DEFAULT_SIZES.map((s) => `${s / 1024}k`).join(','))
    .option('--methods <methods>', 'methods to measure, comma-separated (default: all)')
    .option('--time <seconds>', 'CPU seconds to spend on each method, size and direction', '0.25')
    .option('--json', 'print JSON instead of the table')
    .action((options) => {
      const sizes = parseSizes(options.size);
      const methods = options.methods ? options.methods.split(',') : Object.keys(METHODS);
      const unknown = methods.filter((method) => !METHODS[method]);
      if (unknown.length) throw usageError(`--methods: unknown ${unknown.join(', ')}; valid: ${Object.keys(METHODS).join(', ')}`);
      const seconds = Number(options.time);
      if (!(seconds > 0 && seconds <= 60)) throw usageError(`--time must be a number of seconds between 0 and 60, got ${JSON.stringify(options.time)}`);
      const ceilings = measureMethods(methods, sizes, seconds);
      process.stdout.write(options.json ? `${JSON.stringify(ceilings, null, 2)}\n` : `${formatCipherTable(ceilings)}\n`);
    });
}

function parseSizes(text) {
  return text.split(',').map((part) => {
    const match = /^(\d+)(k?)$/i.exec(part.trim());
    const size = match ? Number(match[1]) * (match[2] ? 1024 : 1) : NaN;
    if (!(size >= 1 && size <= 16 * 1024 * 1024)) throw usageError(`--size: ${JSON.stringify(part)} is not a size like 1k, 16k or 1500`);
    return size;
  });
}

// rc4-md5 and bf-cfb need OpenSSL's legacy provider, which is chosen when
// node starts: measure them in a child started with the flag.
function measureMethods(methods, sizes, seconds) {
  const legacy = methods.filter((method) => METHODS[method].legacy);
  const needChild = legacy.length > 0 && legacyProviderStatus() !== 'loaded';
  const fromChild = needChild ? measureInLegacyChild(legacy, { sizes, seconds }) : [];
  const progress = process.stderr.isTTY ? (text) => process.stderr.write(`\r\x1b[2K${text}`) : () => {};
  const ceilings = methods.map((method, i) => {
    progress(`measuring ${method} (${i + 1}/${methods.length})`);
    return fromChild.find((entry) => entry.method === method) ?? { method, sizes: measureCipherCeiling({ presets: chainFor(method), sizes, minSeconds: seconds }) };
  });
  progress('');
  return ceilings;
}

function measureInLegacyChild(methods, { sizes, seconds }) {
  try {
    return measureMethodsInLegacyChild(methods, { sizes, seconds });
  } catch (error) {
    throw usageError(`${methods.join(', ')} need OpenSSL's legacy provider, which this Node (OpenSSL ${process.versions.openssl}) could not load: ${error.message}`);
  }
}
