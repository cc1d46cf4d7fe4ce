// @ts-check
import { LEGACY_FLAG } from '../crypto/legacy-provider.js';
import { loadCatalogue } from '../presets/registry.js';

export function registerPresetsCommand(program) {
  program
    .command('presets')
    .description('list every preset and the values of its parameters, to write cases.js with')
    .action(async () => {
      process.stdout.write(formatPresets((await loadCatalogue()).all()));
    });
}

// A preset with no role (framing such as padding) may sit anywhere after
// the address preset.

// Each preset with its summary and, per parameter, every value it takes;
// values that need OpenSSL's legacy provider are marked, since only a Node
// whose OpenSSL ships that module can run them.
function formatPresets(presets) {
  const blocks = presets.map((preset) => {
    // A preset with no role (SSR's protocols) shows none; one that needs
    // the legacy provider whatever its parameters says so by its name.
    const tags = [...preset.roles];
    if (Object.keys(preset.params).length === 0 && preset.needsLegacyProvider?.({})) tags.push('legacy provider');
    const lines = [`${preset.name}${tags.length > 0 ? `  (${tags.join(', ')})` : ''}`, `  ${preset.summary}`];
    for (const [key, spec] of Object.entries(preset.params)) {
      if (!spec.values) {
        lines.push(`  ${key}${spec.required ? ' (required)' : ''}: ${spec.description}`);
        continue;
      }
      lines.push(`  ${key}${spec.required ? ' (required)' : ''}:`);
      const width = Math.max(...spec.values.map((value) => value.length));
      for (const value of spec.values) {
        const legacy = preset.needsLegacyProvider?.({ [key]: value });
        lines.push(legacy ? `    ${value.padEnd(width)}  (legacy provider)` : `    ${value}`);
      }
    }
    return lines.join('\n');
  });
  const example = JSON.stringify([{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }]);
  return (
    [
      ...blocks,
      `(legacy provider): rc4 and blowfish live in OpenSSL 3's legacy provider; the runner starts those relays with node ${LEGACY_FLAG}, which works only where Node's OpenSSL has that module.`,
      'Unauthenticated: a stream cipher (ss-stream-cipher) detects no change to its bytes. Whoever sees a connection can flip bits of the ciphertext to rewrite its target port, and the relay server follows; its salt filter only stops the same connection sent twice. `relay server` serves such a chain beyond loopback only with --allow-unauthenticated. Use an AEAD (ss-aead-cipher) on a network.',
      `A case in cases.js is one chain: one address preset first, at most one cipher, a disguise or transport (tls) preset only last: ${example}`,
    ].join('\n\n') + '\n'
  );
}
