import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { AEAD_2022_METHODS } from '../lib/crypto/aead-2022-methods.js';
import { REQUEST_FIXED_LENGTH, responseFixedLength } from '../lib/presets/ss-2022/headers.js';
import { TAG_LENGTH } from '../lib/presets/ss-2022/chunks.js';
import { chainsForThisProcess } from './support/legacy.js';
import { pipelinePair } from '../benchmark/programs/support/pipeline-pair.js';
import { PRESET_CHAINS } from './support/preset-chains.js';
import { SPLIT_POINTS } from './support/suites/soak.js';

// Every chain's client and server decode the first bytes of a stream however
// the kernel splits them: each flight both ways (a handshake, its answer,
// the first records) cut in two at every one of its first SPLIT_POINTS
// bytes, and delivered one byte at a time. In memory, through the same
// pipelines the relays run (benchmark/programs/support/pipeline-pair.js).
//
// The one exception is SIP022's (3.1.3): its salt and fixed-length header
// come in one write and must come in one read, so a server that meets a
// shorter first read refuses it as a probe (test/presets-ss-2022.test.js). Each
// side's first flight is cut no earlier than that.
const TARGET = { host: '127.0.0.1', port: 5201 };

function wholeFirstRead(presets) {
  if (presets[0].name !== 'ss-2022') return 0;
  const { keyLength: salt } = AEAD_2022_METHODS[presets[0].params.method];
  return Math.max(salt + REQUEST_FIXED_LENGTH, salt + responseFixedLength(salt)) + TAG_LENGTH;
}

// The client's bytes, then the server's, each flushed through `cut`; the
// first flight of each flush (a side's first) is kept whole up to `whole`.
function roundTrip(presets, password, cut) {
  const pair = pipelinePair(presets, { password, target: TARGET });
  const whole = wholeFirstRead(presets);
  const flushFirstWhole = () => {
    let first = true;
    pair.flush((bytes) => {
      if (!first || whole === 0) return cut(bytes);
      first = false;
      const pieces = cut(bytes.subarray(whole));
      return [Buffer.concat([bytes.subarray(0, whole), pieces.shift() ?? Buffer.alloc(0)]), ...pieces];
    });
  };
  const up = randomBytes(700);
  const down = randomBytes(900);
  pair.clientWrite(up);
  flushFirstWhole();
  pair.serverWrite(down);
  flushFirstWhole();
  return { pair, up, down };
}

function assertCarried({ pair, up, down }, how) {
  assert.deepEqual(pair.targets, [TARGET], `${how}: the server named the target once`);
  assert.ok(pair.receivedByServer().equals(up), `${how}: the client's bytes reached the server intact`);
  assert.ok(pair.receivedByClient().equals(down), `${how}: the server's bytes reached the client intact`);
}

for (const { label, presets, password = 'splits-test-password' } of chainsForThisProcess(
  import.meta.url,
  PRESET_CHAINS,
)) {
  test(`${label}: every flight cut at each of its first ${SPLIT_POINTS} bytes, and a byte at a time, decodes the same`, () => {
    for (let k = 1; k <= SPLIT_POINTS; k++) {
      assertCarried(
        roundTrip(presets, password, (bytes) =>
          k < bytes.length ? [bytes.subarray(0, k), bytes.subarray(k)] : [bytes],
        ),
        `cut at ${k}`,
      );
    }
    assertCarried(
      roundTrip(presets, password, (bytes) => Array.from(bytes, (byte) => Buffer.from([byte]))),
      'one byte at a time',
    );
  });
}
