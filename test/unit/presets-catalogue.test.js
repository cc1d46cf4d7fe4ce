import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateChain } from '../../lib/chain/validate.js';
import { loadCatalogue, PRESET_NAMES } from '../../lib/presets/registry.js';

// A catalogue is what its caller asked for, whatever any other caller of
// this process loaded before or after (issue 52, item 6): a relay process
// holds its chain's presets, a command the whole catalogue, and neither
// sees the other's.

const AES = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
const VLESS_WS = [{ name: 'vless', params: { id: 'b831381d-6324-4d53-ad4f-8cda48b30811' } }, { name: 'ws' }];
const namesOf = (catalogue) => catalogue.all().map((preset) => preset.name);

test('two catalogues loaded with different names hold only their own presets', async () => {
  const relay = await loadCatalogue(['ss-aead-cipher', 'ss-base']);
  const other = await loadCatalogue(['ws', 'vless']);
  assert.deepEqual(relay.names, ['ss-base', 'ss-aead-cipher']);
  assert.deepEqual(other.names, ['vless', 'ws']);
  assert.deepEqual(namesOf(relay), relay.names);
  assert.equal(relay.named('vless'), undefined);
  assert.equal(other.named('ss-base'), undefined);
  assert.equal(relay.named('ss-base')?.name, 'ss-base');
  assert.deepEqual(validateChain(relay, AES), []);
  assert.deepEqual(validateChain(other, VLESS_WS), []);
  // Each refuses the other's chain: a name it was not given is unknown to it.
  assert.match(validateChain(relay, VLESS_WS)[0].message, /^unknown preset "vless"/);
  assert.match(validateChain(other, AES)[0].message, /^unknown preset "ss-base"/);
});

test("loading order does not change a catalogue: the whole one before or after, a partial one's names are its own", async () => {
  const before = await loadCatalogue(['ss-base']);
  const whole = await loadCatalogue();
  const after = await loadCatalogue(['ss-base']);
  assert.deepEqual(before.names, ['ss-base']);
  assert.deepEqual(after.names, ['ss-base']);
  assert.deepEqual(namesOf(before), ['ss-base']);
  assert.deepEqual(whole.names, PRESET_NAMES);
  assert.deepEqual(namesOf(whole), PRESET_NAMES);
  // The same module behind each: a preset is loaded once, held by many.
  assert.equal(before.named('ss-base'), whole.named('ss-base'));
  // Duplicates and the order names are given in change nothing.
  assert.deepEqual((await loadCatalogue(['ws', 'tls', 'ws', 'vless'])).names, ['vless', 'ws', 'tls']);
  assert.deepEqual((await loadCatalogue([])).names, []);
  // A catalogue is frozen: no caller changes what another holds.
  assert.ok(Object.isFrozen(before) && Object.isFrozen(before.names) && Object.isFrozen(before.all()));
});

test('an unknown name is refused naming the nearest valid preset and every one, as bad input (exit 2)', async () => {
  await assert.rejects(loadCatalogue(['ss-base', 'ss-aead-ciphr']), (error) => {
    assert.equal(
      error.message,
      `unknown preset "ss-aead-ciphr" (did you mean "ss-aead-cipher"?); valid: ${PRESET_NAMES.join(', ')}`,
    );
    assert.equal(error.exitCode, 2);
    return true;
  });
  await assert.rejects(loadCatalogue(['zzzzzzzz']), /^Error: unknown preset "zzzzzzzz"; valid: ss-base, /);
});

test('named() answers undefined for anything that is not a loaded name', async () => {
  const catalogue = await loadCatalogue(['ss-base']);
  for (const name of [undefined, null, 1, {}, 'constructor', '__proto__', 'toString', 'ss-aead-cipher'])
    assert.equal(catalogue.named(name), undefined, String(name));
});
