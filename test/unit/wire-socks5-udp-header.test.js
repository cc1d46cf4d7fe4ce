import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isProtocolError } from '../../lib/wire/protocol-error.js';
import { decodeSocks5UdpDatagram, encodeSocks5UdpDatagram } from '../../lib/wire/socks5-udp-header.js';

// RFC 1928 section 7's UDP request header, written out by hand:
// RSV 0000, FRAG 00, then ATYP, DST.ADDR, DST.PORT, DATA.
const VECTORS = [
  {
    address: { host: '127.0.0.1', port: 53 },
    data: 'ping',
    hex: `000000017f0000010035${Buffer.from('ping').toString('hex')}`,
  },
  {
    address: { host: 'example.com', port: 443 },
    data: '',
    hex: `000000030b${Buffer.from('example.com').toString('hex')}01bb`,
  },
  { address: { host: '::1', port: 8388 }, data: 'x', hex: `00000004${'00'.repeat(15)}0120c478` },
];

test('encodes and decodes the SOCKS5 UDP header byte for byte', () => {
  for (const { address, data, hex } of VECTORS) {
    const datagram = encodeSocks5UdpDatagram(address, Buffer.from(data));
    assert.equal(datagram.toString('hex'), hex, address.host);
    const decoded = decodeSocks5UdpDatagram(datagram);
    assert.deepEqual(decoded.address, address);
    assert.equal(decoded.data.toString(), data);
  }
});

test('RSV is not checked, as ss-local does not', () => {
  const datagram = Buffer.from(VECTORS[0].hex, 'hex');
  datagram[0] = 0xff;
  assert.deepEqual(decodeSocks5UdpDatagram(datagram).address, VECTORS[0].address);
});

test('what no relay should pass on is a protocol error, never another throw', () => {
  const valid = Buffer.from(VECTORS[0].hex, 'hex');
  const domain = (length, actual = length) =>
    Buffer.concat([Buffer.from([0, 0, 0, 3, length]), Buffer.alloc(actual, 0x61), Buffer.from([0, 80])]);
  const cases = [
    ['empty', Buffer.alloc(0), /shorter than its header/],
    ['header only', Buffer.from([0, 0, 0]), /shorter than its header/],
    ['a fragment', Buffer.concat([valid.subarray(0, 2), Buffer.from([1]), valid.subarray(3)]), /fragment 1/],
    [
      'the last fragment (high bit)',
      Buffer.concat([valid.subarray(0, 2), Buffer.from([0x81]), valid.subarray(3)]),
      /fragment 129/,
    ],
    ['unknown address type', Buffer.from([0, 0, 0, 9, 1, 2, 3, 4, 0, 80]), /unknown address type 9/],
    ['IPv4 cut short', valid.subarray(0, 8), /ends inside its address/],
    ['IPv6 cut short', Buffer.from([0, 0, 0, 4, 1, 2, 3]), /ends inside its address/],
    ['empty domain', Buffer.from([0, 0, 0, 3, 0, 0, 80]), /empty domain/],
    ['domain longer than the datagram', domain(200, 20), /ends inside its address/],
    ['domain over 253 bytes', domain(254), /254 bytes that no resolver takes/],
    [
      'domain not UTF-8',
      Buffer.concat([Buffer.from([0, 0, 0, 3, 3, 0xff, 0xfe, 0xfd, 0, 80])]),
      /3 bytes that no resolver takes/,
    ],
    ['port 0', Buffer.from([0, 0, 0, 1, 127, 0, 0, 1, 0, 0]), /port 0/],
  ];
  for (const [what, datagram, message] of cases) {
    assert.throws(
      () => decodeSocks5UdpDatagram(datagram),
      (error) => isProtocolError(error) && message.test(error.message),
      what,
    );
  }
  assert.equal(decodeSocks5UdpDatagram(domain(253)).address.host.length, 253, 'a 253-byte name passes');
});
