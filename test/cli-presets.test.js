import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { AEAD_METHODS } from '../lib/crypto/aead-methods.js';
import { STREAM_METHODS } from '../lib/crypto/stream-methods.js';
import { CATALOGUE } from '../lib/presets/index.js';
import { CLI } from './support/processes.js';

const output = execFileSync(process.execPath, [CLI, 'presets'], { encoding: 'utf8' });

const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('lists every preset with its roles and summary', () => {
  for (const preset of CATALOGUE.all()) {
    const tags = [
      ...preset.roles,
      ...(Object.keys(preset.params).length === 0 && preset.needsLegacyProvider?.({}) ? ['legacy provider'] : []),
    ];
    const heading = tags.length > 0 ? `${preset.name}  (${tags.join(', ')})` : preset.name;
    assert.match(output, new RegExp(`(^|\\n)${escaped(heading)}\\n {2}${escaped(preset.summary)}\\n`));
  }
});

test('lists every method, marking those that need the legacy provider', () => {
  const methods = { ...STREAM_METHODS, ...AEAD_METHODS };
  for (const [method, { legacy }] of Object.entries(methods)) {
    const line = output.split('\n').find((text) => text.trim().split(/\s+/)[0] === method);
    assert.ok(line, `${method} listed`);
    assert.equal(line.includes('(legacy provider)'), Boolean(legacy), line);
  }
  assert.match(output, /--openssl-legacy-provider/);
});
