import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collectYoungEvery } from '../../lib/relay/udp/young-collection.js';

const arrayBufferBytes = () => process.memoryUsage().arrayBuffers;

// What a UDP relay's memory bound rests on: buffers nothing holds any
// more are freed as soon as the bytes counted pass the limit, within
// the call, not when V8 would next collect or its helper thread runs.
test('young buffers are freed within the call that passes the limit', () => {
  const limit = 2 ** 20;
  const received = collectYoungEvery(limit);
  // 500 datagrams of 1,500 bytes, dropped when the function returns
  // (counted, they stay under the limit).
  const readAndDrop = () => {
    for (const datagram of Array.from({ length: 500 }, () => Buffer.allocUnsafeSlow(1500))) received(datagram.length);
  };
  const freed = [];
  for (let round = 0; round < 5; round++) {
    const before = arrayBufferBytes();
    readAndDrop();
    const held = arrayBufferBytes() - before;
    received(limit);
    freed.push(`${held - (arrayBufferBytes() - before)} of ${held}`);
    assert.ok(arrayBufferBytes() - before < 50_000, `round ${round}: freed ${freed.at(-1)} bytes`);
  }
});
