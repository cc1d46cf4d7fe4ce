import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prepareChain } from '../../lib/chain/pipeline.js';
import { prepareMux } from '../../lib/chain/mux-plan.js';
import { validateChain } from '../../lib/chain/validate.js';
import { BLINKSOCKS_MUX_TARGET, createFrameReader, encodeFrame, STATUS } from '../../lib/wire/blinksocks-mux-frames.js';
import { CATALOGUE } from '../../lib/presets/index.js';
import { everyCut, pick, readMuxFrames } from '../support/mux-frame-reader.js';

// Known-answer frames of blinksocks 3.3.0's mux, written out from its
// lib/presets/_mux.js (command, 4-byte id, then a host with a 1-byte length
// and a 2-byte port, or a 2-byte length and data), and how the reader takes
// them apart, whole and cut at every byte.
const hex = (text) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const ascii = (text) => Buffer.from(text, 'ascii').toString('hex');

const VECTORS = [
  {
    label: 'New to example.com:80',
    frame: { id: 0x0a0b0c0d, status: STATUS.new, target: { host: 'example.com', port: 80 } },
    bytes: hex(`00 0a0b0c0d 0b ${ascii('example.com')} 0050`),
    read: [{ id: 0x0a0b0c0d, status: STATUS.new, network: 1, target: { host: 'example.com', port: 80 }, data: '' }],
  },
  {
    // blinksocks' client writes a session's first bytes after its New.
    label: 'New to 127.0.0.1:443 with its first data',
    frame: { id: 1, status: STATUS.new, target: { host: '127.0.0.1', port: 443 }, data: Buffer.from('GET') },
    bytes: hex(`00 00000001 09 ${ascii('127.0.0.1')} 01bb  01 00000001 0003 ${ascii('GET')}`),
    read: [
      { id: 1, status: STATUS.new, network: 1, target: { host: '127.0.0.1', port: 443 }, data: '' },
      { id: 1, status: STATUS.keep, hasData: true, target: null, data: 'GET' },
    ],
  },
  {
    label: 'Data',
    frame: { id: 0xffffffff, status: STATUS.keep, data: Buffer.from('ok') },
    bytes: hex(`01 ffffffff 0002 ${ascii('ok')}`),
    read: [{ id: 0xffffffff, status: STATUS.keep, hasData: true, target: null, data: 'ok' }],
  },
  {
    label: 'Data of no bytes, which carries nothing',
    frame: { id: 7, status: STATUS.keep, data: Buffer.alloc(0) },
    bytes: hex('01 00000007 0000'),
    read: [{ id: 7, status: STATUS.keep, hasData: false, data: '' }],
  },
  {
    label: 'Close (an error has no place in it)',
    frame: { id: 513, status: STATUS.end, error: true },
    bytes: hex('02 00000201'),
    read: [{ id: 513, status: STATUS.end, error: false, target: null, data: '' }],
  },
];

const readFrames = (pieces) => readMuxFrames(createFrameReader, pieces);

for (const { label, frame, bytes, read } of VECTORS) {
  test(`blinksocks mux frame: ${label}`, () => {
    assert.equal(Buffer.concat(encodeFrame(frame)).toString('hex'), bytes.toString('hex'));
    for (const pieces of everyCut(bytes)) {
      const { frames, atBoundary } = readFrames(pieces);
      assert.deepEqual(
        frames.map((each, i) => pick(each, Object.keys(read[i] ?? {}))),
        read,
      );
      assert.ok(atBoundary);
    }
  });
}

test('blinksocks mux: data over 65,535 bytes goes in more than one Data frame', () => {
  const data = Buffer.alloc(70_000, 0x61);
  const { frames } = readFrames(encodeFrame({ id: 3, status: STATUS.keep, data }));
  assert.deepEqual(
    frames.map((frame) => frame.data.length),
    [65_535, 70_000 - 65_535],
  );
});

test('blinksocks mux reader: a frame cut inside is not at a boundary', () => {
  assert.equal(readFrames([hex('01 00000001 0005 6f')]).atBoundary, false);
  assert.equal(readFrames([hex('00 00000001 03 6162')]).atBoundary, false);
});

test('blinksocks mux reader: what no sender writes is a protocol error', () => {
  const refused = [
    ['03', /unknown frame command 3/],
    ['ff 00000001', /unknown frame command 255/],
    ['00 00000001 00 0050', /New frame with an empty host/],
    [`00 00000001 03 ${ascii('a b')} 0050`, /host is not a host name/],
    [`00 00000001 02 0a00 0050`, /host is not a host name/],
    [`00 00000001 01 ${ascii('a')} 0000`, /New frame for port 0/],
  ];
  for (const [bytes, message] of refused) {
    assert.throws(
      () => readFrames([hex(bytes)]),
      (error) => error.code === 'ERR_CIPHERBENCH_PROTOCOL' && message.test(error.message),
      bytes,
    );
  }
});

const GCM = { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } };
const MUX = { name: 'blinksocks-mux' };
const messages = (chain) => validateChain(CATALOGUE, chain).map(({ field, message }) => `${field}: ${message}`);

test("blinksocks-mux in a chain: first, in the address preset's place", () => {
  assert.deepEqual(messages([MUX, GCM]), []);
  assert.deepEqual(messages([{ name: 'blinksocks-mux', params: { concurrency: 4 } }, GCM, { name: 'ws' }]), []);
  // One line, not also the rule every other address preset gets.
  assert.deepEqual(messages([{ name: 'ss-base' }, GCM, MUX]), [
    "presets[2].name: blinksocks-mux carries each session's target, in the address preset's place (blinksocks drops ss-base under mux: true); in order: blinksocks-mux, ss-aead-cipher",
  ]);
  assert.match(messages([MUX, { name: 'ss-base' }, GCM]).join('\n'), /in order: blinksocks-mux, ss-aead-cipher$/m);
  assert.deepEqual(messages([GCM, MUX]), [
    "presets[1].name: blinksocks-mux carries each session's target, in the address preset's place, first; in order: blinksocks-mux, ss-aead-cipher",
  ]);
  assert.deepEqual(messages([MUX, GCM, { name: 'mux' }]), ['presets[2].name: a second mux: a chain multiplexes once']);
  assert.deepEqual(messages([{ name: 'mux' }, MUX, GCM]), [
    "presets[1].name: blinksocks-mux carries each session's target, in the address preset's place, first; in order: blinksocks-mux, ss-aead-cipher",
    'presets[0].name: a second mux: a chain multiplexes once',
  ]);
  assert.match(messages([{ name: 'blinksocks-mux', params: { concurrency: 0 } }, GCM])[0], /from 1 to 1024/);
});

test('blinksocks-mux: a server names the tunnel at the first bytes its cipher lets through', () => {
  const chain = [MUX, GCM];
  const mux = prepareMux(CATALOGUE, chain);
  assert.equal(mux.carries(BLINKSOCKS_MUX_TARGET), true);
  assert.equal(mux.carries({ host: 'blinksocks.mux', port: 1 }), false);
  assert.equal(mux.mostOpen, 128);
  assert.equal(prepareMux(CATALOGUE, [{ name: 'blinksocks-mux', params: { concurrency: 200 } }, GCM]).mostOpen, 200);

  const wire = [];
  const encode = prepareChain(CATALOGUE, chain, { password: 'k' })('client', { target: mux.target }).encoder((data) =>
    wire.push(Buffer.from(data)),
  );
  const frames = Buffer.concat(encodeFrame({ id: 1, status: STATUS.new, target: { host: 'localhost', port: 7 } }));
  encode(frames);
  const bytes = Buffer.concat(wire);

  const named = [];
  const decoded = [];
  const server = prepareChain(CATALOGUE, chain, { password: 'k' })('server', {
    onTarget: (target) => named.push(target),
  });
  const decode = server.decoder((data) => decoded.push(Buffer.from(data)));
  // A salt and a length chunk's first bytes: nothing authenticated yet.
  decode(bytes.subarray(0, 40));
  assert.deepEqual(named, []);
  decode(bytes.subarray(40));
  assert.deepEqual(named, [BLINKSOCKS_MUX_TARGET]);
  assert.deepEqual(Buffer.concat(decoded), frames);

  const wrongKey = prepareChain(CATALOGUE, chain, { password: 'other' })('server', {
    onTarget: (target) => named.push(target),
  });
  assert.throws(() => wrongKey.decoder(() => {})(bytes));
  assert.equal(named.length, 1);
});
