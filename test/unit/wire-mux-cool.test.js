import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prepareChain } from '../../lib/chain/pipeline.js';
import { validateChain } from '../../lib/chain/validate.js';
import { decodeRequest, encodeRequest, requestLength } from '../../lib/presets/vmess/request.js';
import {
  createFrameReader,
  encodeFrame,
  MOST_METADATA_BYTES,
  MUX_COOL_TARGET,
  NETWORK_UDP,
  STATUS,
} from '../../lib/wire/mux-cool.js';
import { CATALOGUE } from '../../lib/presets/index.js';
import { everyCut, pick, readMuxFrames } from '../support/mux-frame-reader.js';

// Known-answer frames of Mux.Cool, written out from V2Ray's "Mux.Cool
// protocol" document and Xray's common/mux/frame.go (port before address,
// address types 1 IPv4, 2 domain, 3 IPv6), and how the reader takes them
// apart, whole and cut at every byte.
const hex = (text) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const ascii = (text) => Buffer.from(text, 'ascii').toString('hex');

const VECTORS = [
  {
    label: 'New, TCP to example.com:80, no data',
    frame: { id: 1, status: STATUS.new, target: { host: 'example.com', port: 80 } },
    bytes: hex(`0014 0001 01 00 01 0050 02 0b ${ascii('example.com')}`),
    read: { id: 1, status: STATUS.new, network: 1, target: { host: 'example.com', port: 80 }, data: '' },
  },
  {
    label: 'New with data, TCP to 127.0.0.1:443',
    frame: { id: 2, status: STATUS.new, target: { host: '127.0.0.1', port: 443 }, data: Buffer.from('GET') },
    bytes: hex(`000c 0002 01 01 01 01bb 01 7f000001 0003 ${ascii('GET')}`),
    read: { id: 2, status: STATUS.new, network: 1, target: { host: '127.0.0.1', port: 443 }, data: 'GET' },
  },
  {
    label: 'New, TCP to [::1]:8080',
    frame: { id: 3, status: STATUS.new, target: { host: '::1', port: 8080 } },
    bytes: hex('0018 0003 01 00 01 1f90 03 00000000000000000000000000000001'),
    read: { id: 3, status: STATUS.new, network: 1, target: { host: '::1', port: 8080 }, data: '' },
  },
  {
    label: 'Keep with data',
    frame: { id: 1, status: STATUS.keep, data: Buffer.from('ok') },
    bytes: hex(`0004 0001 02 01 0002 ${ascii('ok')}`),
    read: { id: 1, status: STATUS.keep, network: 0, target: null, data: 'ok' },
  },
  {
    label: 'End with Error',
    frame: { id: 513, status: STATUS.end, error: true },
    bytes: hex('0004 0201 03 02'),
    read: { id: 513, status: STATUS.end, error: true, network: 0, target: null, data: '' },
  },
  {
    label: 'New, UDP to 127.0.0.1:53, its first datagram',
    frame: {
      id: 4,
      status: STATUS.new,
      network: NETWORK_UDP,
      target: { host: '127.0.0.1', port: 53 },
      data: Buffer.from('q'),
    },
    bytes: hex(`000c 0004 01 01 02 0035 01 7f000001 0001 ${ascii('q')}`),
    read: { id: 4, status: STATUS.new, network: 2, target: { host: '127.0.0.1', port: 53 }, data: 'q' },
  },
  {
    // Xray's XUDP: the datagram's own address (its source, from a server).
    label: 'Keep, a UDP datagram from [::1]:5353',
    frame: { id: 4, status: STATUS.keep, address: { host: '::1', port: 5353 }, data: Buffer.from('a') },
    bytes: hex(`0018 0004 02 01 02 14e9 03 00000000000000000000000000000001 0001 ${ascii('a')}`),
    read: { id: 4, status: STATUS.keep, network: 2, target: { host: '::1', port: 5353 }, data: 'a' },
  },
  {
    label: 'KeepAlive',
    frame: { id: 0, status: STATUS.keepAlive },
    bytes: hex('0004 0000 04 00'),
    read: { id: 0, status: STATUS.keepAlive, network: 0, target: null, data: '' },
  },
];

const readFrames = (pieces) => readMuxFrames(createFrameReader, pieces);

for (const { label, frame, bytes, read } of VECTORS) {
  test(`mux frame: ${label}`, () => {
    assert.equal(Buffer.concat(encodeFrame(frame)).toString('hex'), bytes.toString('hex'));
    for (const pieces of everyCut(bytes)) {
      const { frames, atBoundary } = readFrames(pieces);
      assert.equal(frames.length, 1);
      assert.deepEqual(pick(frames[0], Object.keys(read)), read);
      assert.ok(atBoundary);
    }
  });
}

test("mux reader: metadata past a New frame's own fields (Xray's XUDP global id) is skipped", () => {
  const bytes = hex(`0014 0001 01 01 01 0050 01 7f000001 0102030405060708 0001 ${ascii('x')} 0004 0001 03 00`);
  const { frames } = readFrames([bytes]);
  assert.deepEqual(
    frames.map((frame) => pick(frame, ['id', 'status', 'data'])),
    [
      { id: 1, status: STATUS.new, data: 'x' },
      { id: 1, status: STATUS.end, data: '' },
    ],
  );
});

// Xray's client writes an XUDP New frame so (common/mux/frame.go: the
// global id after the address), and its Keep frames with the datagram's
// target; a Keep frame whose fifth byte is not 2 carries no address.
test("mux reader: XUDP's New frame with a global id, and Keep frames with and without an address", () => {
  const bytes = hex(
    `0014 0001 01 01 02 1388 01 7f000001 0102030405060708 0001 ${ascii('x')}` +
      `000e 0001 02 01 02 1389 02 05 ${ascii('local')} 0001 ${ascii('y')}` +
      `0005 0001 02 01 07 0001 ${ascii('z')}`,
  );
  const { frames } = readFrames([bytes]);
  assert.deepEqual(
    frames.map((frame) => pick(frame, ['id', 'status', 'network', 'target', 'data'])),
    [
      { id: 1, status: STATUS.new, network: 2, target: { host: '127.0.0.1', port: 5000 }, data: 'x' },
      { id: 1, status: STATUS.keep, network: 2, target: { host: 'local', port: 5001 }, data: 'y' },
      { id: 1, status: STATUS.keep, network: 0, target: null, data: 'z' },
    ],
  );
});

test('mux reader: a frame cut inside is not at a boundary', () => {
  assert.equal(readFrames([hex('0004 0001 02 01 0005 6f')]).atBoundary, false);
});

test('mux reader: what no sender writes is a protocol error', () => {
  const refused = [
    [`0${(MOST_METADATA_BYTES + 1).toString(16)}`, /metadata of 513 bytes, over 512/],
    ['ffff', /metadata of 65535 bytes, over 512/],
    ['0003 000102', /metadata of 3 bytes, under 4/],
    ['0004 0001 05 00', /unknown frame status 5/],
    ['0004 0001 00 00', /unknown frame status 0/],
    ['0005 0001 01 00 01', /New frame's metadata of 5 bytes, under 8/],
    ['0009 0001 01 00 01 0050 04 00', /unknown address type 4/],
    ['0009 0001 01 00 01 0050 02 00', /empty domain name/],
    ['000a 0001 01 00 01 0050 02 05 61', /cut inside its domain name/],
    ['000a 0001 01 00 01 0050 01 7f 00', /cut inside its IPv4 address/],
    ['0005 0001 02 01 02', /Keep frame's metadata of 5 bytes, under 8/],
    ['0009 0001 02 01 02 0050 09 00', /unknown address type 9/],
    ['0009 0001 02 01 02 0050 03 00', /Keep frame cut inside its IPv6 address/],
  ];
  for (const [bytes, message] of refused) {
    assert.throws(
      () => readFrames([hex(bytes)]),
      (error) => error.code === 'ERR_CIPHERBENCH_PROTOCOL' && message.test(error.message),
      bytes,
    );
  }
});

test('mux in a chain: after the address and cipher presets, before any transport', () => {
  const id = 'a3482e88-686a-4a58-8126-99c9df64b7bf';
  const vless = { name: 'vless', params: { id } };
  const base = { name: 'ss-base' };
  const gcm = { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } };
  const messages = (chain) => validateChain(CATALOGUE, chain).map(({ field, message }) => `${field}: ${message}`);
  assert.deepEqual(messages([vless, { name: 'mux' }, { name: 'tls' }]), []);
  assert.deepEqual(messages([base, gcm, { name: 'mux', params: { concurrency: 16 } }]), []);
  assert.match(
    messages([base, { name: 'mux' }, gcm])[0],
    /presets\[1\]\.name: mux .* in order: ss-base, ss-aead-cipher, mux$/,
  );
  assert.match(messages([vless, { name: 'tls' }, { name: 'mux' }]).join('\n'), /in order: vless, mux, tls/);
  assert.match(messages([vless, { name: 'mux' }, { name: 'mux' }])[0], /presets\[2\]\.name: a second mux/);
  assert.match(
    messages([vless, { name: 'mux', params: { concurrency: 0 } }])[0],
    /concurrency: must be an integer from 1 to 1024/,
  );
  assert.match(
    messages([vless, { name: 'mux', params: { concurency: 8 } }])[0],
    /takes no parameter "concurency" \(did you mean "concurrency"/,
  );
});

// V2Ray's and Xray's clients open a tunnel over VLESS and VMess with the
// Mux command (3), which has no port or address (Xray's
// proxy/vless/encoding, V2Ray's proxy/vmess/encoding); their servers read
// it as v1.mux.cool, port 0.
test('VLESS and VMess: v1.mux.cool is the Mux command, without an address', () => {
  const id = 'a3482e88-686a-4a58-8126-99c9df64b7bf';
  const vless = [{ name: 'vless', params: { id } }];
  const out = [];
  const encode = prepareChain(
    CATALOGUE,
    vless,
    {},
  )('client', { target: MUX_COOL_TARGET }).encoder((data) => out.push(data));
  encode(hex('0004 0000 04 00'));
  assert.equal(Buffer.concat(out).toString('hex'), `00${id.replaceAll('-', '')}0003` + '0004000004' + '00');
  const targets = [];
  const passed = [];
  const server = prepareChain(CATALOGUE, vless, {})('server', { onTarget: (address) => targets.push(address) });
  server.decoder((data) => passed.push(data))(Buffer.concat(out));
  assert.deepEqual(targets, [{ host: 'v1.mux.cool', port: 0 }]);
  assert.equal(Buffer.concat(passed).toString('hex'), '000400000400');

  const shape = { bodyIv: Buffer.alloc(16, 1), bodyKey: Buffer.alloc(16, 2), responseByte: 7, option: 1, security: 3 };
  const request = encodeRequest({ ...shape, target: MUX_COOL_TARGET, padding: Buffer.alloc(3) });
  assert.equal(request.length, 38 + 3 + 4);
  assert.equal(request[37], 3);
  assert.equal(requestLength(request), request.length);
  assert.equal(requestLength(request.subarray(0, request.length - 1)), 0);
  assert.deepEqual(decodeRequest(request).target, { host: 'v1.mux.cool', port: 0 });
});
