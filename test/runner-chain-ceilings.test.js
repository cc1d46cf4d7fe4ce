import assert from 'node:assert/strict';
import { test } from 'node:test';
import { legacyProviderStatus } from '../lib/crypto/legacy-provider.js';
import { ceilingFor, measureChainCeilings } from '../lib/ceiling/chain-ceilings.js';

const chain = (name, method) => [{ name: 'ss-base' }, { name, params: { method } }];
const GCM = chain('ss-aead-cipher', 'aes-128-gcm');
const RC4 = chain('ss-stream-cipher', 'rc4-md5');
// A bound for a hang, not a speed: a ceiling is a fifth of a CPU second
// each way, and three chains with their children's start-up about 2 CPU
// seconds, which a loaded machine stretches in wall time (over 30 s at
// load average 21 on 2 cores, the suite beside another).
const HANG = { timeout: 120_000 };

test(
  'one ceiling per distinct chain, in 3 rounds with their spread; rc4-md5 through a child with the legacy provider',
  HANG,
  async () => {
    // The test runner starts Node without --openssl-legacy-provider, as a
    // person's shell does, so rc4-md5 must come from the child.
    assert.notEqual(legacyProviderStatus(), 'loaded');
    const told = [];
    const ceilings = await measureChainCeilings([GCM, RC4, GCM], {
      onChain: (presets, position, total) => told.push([presets, position, total]),
    });
    assert.deepEqual(told, [
      [GCM, 1, 2],
      [RC4, 2, 2],
    ]);
    for (const presets of [GCM, RC4]) {
      const { ceiling } = ceilingFor(ceilings, presets);
      assert.equal(ceiling.size, 65536);
      assert.ok(ceiling.encryptBps > 1e8 && ceiling.decryptBps > 1e8, JSON.stringify(ceiling));
      // Each direction the median of 3 rounds, between their min and max.
      assert.equal(ceiling.rounds, 3);
      for (const direction of ['encrypt', 'decrypt']) {
        const [min, median, max] = ['MinBps', 'Bps', 'MaxBps'].map((field) => ceiling[`${direction}${field}`]);
        assert.ok(min <= median && median <= max && min > 1e8, JSON.stringify(ceiling));
      }
    }
  },
);

test('any chain that needs the legacy provider is measured in the child, whatever its depth', HANG, async () => {
  const deeper = [
    { name: 'base-auth', params: { method: 'md5' } },
    { name: 'ss-stream-cipher', params: { method: 'rc4-md5-6' } },
  ];
  const ceilings = await measureChainCeilings([deeper, RC4]);
  for (const presets of [deeper, RC4]) {
    const { ceiling } = ceilingFor(ceilings, presets);
    assert.ok(ceiling.encryptBps > 1e8 && ceiling.decryptBps > 1e8, JSON.stringify(ceiling));
  }
});

test('an aborted signal stops before the next chain', async () => {
  const controller = new AbortController();
  controller.abort('SIGINT');
  const ceilings = await measureChainCeilings([GCM], { signal: controller.signal });
  assert.equal(ceilingFor(ceilings, GCM), null);
});

test('a chain with a handshake (the client holds its data until the server answers) gets a ceiling', async () => {
  const tls = [...chain('ss-aead-cipher', 'aes-128-gcm'), { name: 'obfs-tls1.2-ticket', params: { sni: 'test.com' } }];
  const { ceiling } = ceilingFor(await measureChainCeilings([tls]), tls);
  assert.ok(ceiling.encryptBps > 1e8 && ceiling.decryptBps > 1e8, JSON.stringify(ceiling));
});

// Measured in a child: the run's event loop (a Ctrl-C, the progress line)
// keeps turning while the CPU works. In-process, one chain held it for
// over half a second (a fifth of a CPU second each way, plus the warm-up),
// three chains well over a CPU second. What holds a loop up is CPU spent
// in its own process, so that is what is measured: a stall in wall time
// also counts the turns a loaded machine's scheduler gives to others (337
// ms once, with the suite and a busy loop on 2 cores).
test('measuring ceilings never holds up the event loop: the work is done in a child', HANG, async () => {
  const before = process.cpuUsage();
  const ceilings = await measureChainCeilings([GCM, chain('ss-aead-cipher', 'chacha20-ietf-poly1305'), RC4]);
  const { user, system } = process.cpuUsage(before);
  assert.equal(ceilings.size, 3);
  const spentMs = (user + system) / 1000;
  assert.ok(
    spentMs < 250,
    `this process spent ${Math.round(spentMs)} ms of CPU measuring 3 ceilings; the child should`,
  );
});

test(
  'a chain ending in a transport (tls) gets no ceiling, but the reason, and the chains beside it are measured',
  HANG,
  async () => {
    const trojan = [{ name: 'trojan' }, { name: 'tls' }];
    const ceilings = await measureChainCeilings([trojan, GCM]);
    assert.deepEqual(ceilingFor(ceilings, trojan), {
      reason: "its tls transport works in the relay's socket, outside the in-process measurement",
    });
    assert.ok(ceilingFor(ceilings, GCM).ceiling.encryptBps > 1e8);
  },
);
