import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { test } from 'node:test';
import { pipelinePair } from '../../benchmark/programs/support/pipeline-pair.js';
import { PRESET_CHAINS } from '../support/preset-chains.js';

// Every obfs chain, ours against ours in memory: the stages compose at any
// depth (padding under a cipher under a disguise), the target arrives, and
// bytes cut at random places on the wire come out whole both ways.
const cutAtRandom = (bytes) => {
  const pieces = [];
  for (let at = 0; at < bytes.length;) {
    const size = Math.min(bytes.length - at, 1 + randomInt(3000));
    pieces.push(bytes.subarray(at, at + size));
    at += size;
  }
  return pieces;
};

const OBFS_CHAINS = PRESET_CHAINS.filter(({ presets }) => presets.some(({ name }) => name.startsWith('obfs-')));

for (const { label, presets } of OBFS_CHAINS) {
  test(`${label}: ours to ours, cut anywhere`, () => {
    const target = { host: 'example.test', port: 8443 };
    const pair = pipelinePair(presets, { target });
    pair.clientWrite(Buffer.alloc(0));
    pair.flush(cutAtRandom);
    assert.deepEqual(pair.targets, [target]);
    for (const size of [1, 1500, 70_000, 300_000]) {
      const up = randomBytes(size);
      const down = randomBytes(size);
      pair.clientWrite(up);
      pair.serverWrite(down);
      pair.flush(cutAtRandom);
      assert.deepEqual(pair.receivedByServer(), up, `${size} bytes up`);
      assert.deepEqual(pair.receivedByClient(), down, `${size} bytes down`);
    }
  });
}
