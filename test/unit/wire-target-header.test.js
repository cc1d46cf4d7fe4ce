import assert from 'node:assert/strict';
import { test } from 'node:test';
import { targetHeaderStages } from '../../lib/wire/target-header.js';

// The halves ss-base and base-auth share: a toy header here ([length][host
// bytes][port, 2 bytes]) so that only the stages' own rules are tested.
const encodeHeader = ({ host, port }) => {
  const name = Buffer.from(host);
  const header = Buffer.alloc(1 + name.length + 2);
  header[0] = name.length;
  name.copy(header, 1);
  header.writeUInt16BE(port, 1 + name.length);
  return header;
};
const headerLength = (queue) => {
  if (queue.length < 1) return 0;
  const length = 1 + queue.peek(0) + 2;
  return queue.length < length ? 0 : length;
};
const decodeHeader = (header) => ({
  host: header.subarray(1, header.length - 2).toString(),
  port: header.readUInt16BE(header.length - 2),
});

function stages(options = {}) {
  const targets = [];
  const connection = { target: { host: 'h', port: 7 }, onTarget: (target) => targets.push(target) };
  return { targets, ...targetHeaderStages(connection, { encodeHeader, headerLength, decodeHeader, ...options }) };
}
const run = (stage, pieces) => {
  const out = [];
  for (const piece of pieces) stage(piece, (data) => out.push(Buffer.from(data)));
  return out;
};

test('the client sends the header once, joined to the first write; later writes pass untouched', () => {
  const { clientEncode } = stages();
  assert.deepEqual(run(clientEncode, [Buffer.from('ab'), Buffer.from('cd')]), [
    Buffer.from('\x01h\x00\x07ab', 'latin1'),
    Buffer.from('cd'),
  ]);
});

test('an empty first write sends the header alone, unless firstBytes holds it for data', () => {
  assert.deepEqual(run(stages().clientEncode, [Buffer.alloc(0)]), [Buffer.from('\x01h\x00\x07', 'latin1')]);
  assert.deepEqual(
    run(stages({ firstBytes: true }).clientEncode, [Buffer.alloc(0), Buffer.alloc(0), Buffer.from('x')]),
    [Buffer.from('\x01h\x00\x07x', 'latin1')],
  );
});

test('the server holds bytes until the header is whole, names the target once, then passes everything on', () => {
  const { serverDecode, targets } = stages();
  const out = run(serverDecode, [
    Buffer.from([1]),
    Buffer.from('h\x00'),
    Buffer.from('\x07'),
    Buffer.from('data'),
    Buffer.from('more'),
  ]);
  assert.deepEqual(targets, [{ host: 'h', port: 7 }]);
  assert.deepEqual(out, [Buffer.from('data'), Buffer.from('more')]);
});

test('bytes behind the header in the same read go on in that read; none means no empty push', () => {
  const first = stages();
  assert.deepEqual(run(first.serverDecode, [Buffer.from('\x01h\x00\x07rest', 'latin1')]), [Buffer.from('rest')]);
  const second = stages();
  assert.deepEqual(run(second.serverDecode, [Buffer.from('\x01h\x00\x07', 'latin1')]), []);
  assert.deepEqual(second.targets, [{ host: 'h', port: 7 }]);
});

test('what headerLength and decodeHeader throw reaches the caller', () => {
  const { serverDecode } = targetHeaderStages(
    { onTarget: () => {} },
    {
      encodeHeader,
      headerLength: () => {
        throw new Error('bad header');
      },
      decodeHeader,
    },
  );
  assert.throws(() => run(serverDecode, [Buffer.from('x')]), /bad header/);
});
