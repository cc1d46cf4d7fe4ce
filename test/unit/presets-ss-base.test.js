import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prepareChain } from '../../lib/chain/pipeline.js';
import { assertEverySplit } from '../support/splits.js';
import { CATALOGUE } from '../../lib/presets/index.js';

// ss-base: the Shadowsocks stream without a cipher, [address header][data]
// (SIP002's plain form, RFC 1928's address). A shadowsocks-libev server
// with method "none" reads exactly these bytes.
const TARGET = { host: 'example.com', port: 443 };
const HEADER = Buffer.from(`030b${Buffer.from('example.com').toString('hex')}01bb`, 'hex');

// What a side's encoder or decoder (made with its sink) pushes for pieces.
const runStage = (make, pieces) => {
  const out = [];
  const stage = make((data) => out.push(Buffer.from(data)));
  for (const piece of pieces) stage(piece);
  return out;
};

const client = (target = TARGET) =>
  prepareChain(CATALOGUE, [{ name: 'ss-base' }], { password: 'unused' })('client', { target });
const server = () => {
  const targets = [];
  const side = prepareChain(CATALOGUE, [{ name: 'ss-base' }], { password: 'unused' })('server', {
    onTarget: (t) => targets.push(t),
  });
  return { side, targets };
};

test('the client writes the address header, then the data as it comes', () => {
  const wire = runStage(client().encoder, [Buffer.from('GET /'), Buffer.from(' HTTP/1.1')]);
  assert.deepEqual(wire, [Buffer.concat([HEADER, Buffer.from('GET /')]), Buffer.from(' HTTP/1.1')]);
});

test('an empty first write sends the header alone (the target may speak first)', () => {
  const encoder = client({ host: '127.0.0.1', port: 5201 }).encoder;
  const wire = runStage(encoder, [Buffer.alloc(0), Buffer.from('x')]);
  assert.deepEqual(wire, [Buffer.from('017f0000011451', 'hex'), Buffer.from('x')]);
});

test('the server names the target once the header is whole and passes the rest on, wherever the stream is cut', () => {
  const stream = Buffer.concat([HEADER, Buffer.from('first bytes')]);
  assertEverySplit(
    assert,
    stream,
    (pieces) => {
      const { side, targets } = server();
      const out = runStage(side.decoder, pieces);
      assert.deepEqual(targets, [TARGET]);
      return out;
    },
    Buffer.from('first bytes'),
  );
});

test("the server answers with the target's bytes unchanged, and the client reads them unchanged", () => {
  const { side } = server();
  assert.deepEqual(runStage(side.encoder, [Buffer.from('reply')]), [Buffer.from('reply')]);
  assert.deepEqual(runStage(client().decoder, [Buffer.from('reply')]), [Buffer.from('reply')]);
});

test('a header the server cannot read is a protocol error', () => {
  const { side } = server();
  assert.throws(() => runStage(side.decoder, [Buffer.from([9, 1, 2, 3])]), {
    code: 'ERR_CIPHERBENCH_PROTOCOL',
    message: /unknown address type 9/,
  });
});
