import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressHeaderLength, decodeAddressHeader, encodeAddressHeader } from '../../lib/wire/address-header.js';

// The Shadowsocks address header is SOCKS5's address (RFC 1928, section 5:
// ATYP, address, port in network order), as SIP002 and every Shadowsocks
// implementation write it. The vectors are the RFCs' own addresses,
// written out by hand.
const VECTORS = [
  { target: { host: '127.0.0.1', port: 443 }, hex: '017f00000101bb' },
  { target: { host: '192.0.2.1', port: 8388 }, hex: '01c000020120c4' },
  { target: { host: 'example.com', port: 80 }, hex: `030b${Buffer.from('example.com').toString('hex')}0050` },
  { target: { host: '::1', port: 8388 }, hex: `04${'00'.repeat(15)}0120c4` },
  // RFC 3849's documentation prefix; zero compression in the middle.
  { target: { host: '2001:db8::ff00:42:8329', port: 65535 }, hex: '0420010db8000000000000ff0000428329ffff' },
  // RFC 4291 2.5.5.2: an IPv4-mapped address, dotted quad in the last 32 bits.
  { target: { host: '::ffff:192.0.2.128', port: 1 }, hex: `04${'00'.repeat(10)}ffffc00002800001` },
];

test('encodes the RFC 1928 address forms byte for byte and decodes them back', () => {
  for (const { target, hex } of VECTORS) {
    const header = encodeAddressHeader(target);
    assert.equal(header.toString('hex'), hex, target.host);
    assert.deepEqual(decodeAddressHeader(header), target);
  }
});

test('the length is known only once the whole header can be seen, and never before', () => {
  for (const { hex } of VECTORS) {
    const header = Buffer.from(hex, 'hex');
    const withData = Buffer.concat([header, Buffer.from('first bytes')]);
    for (let available = 0; available < header.length; available++) {
      assert.equal(
        addressHeaderLength((i) => withData[i], available),
        0,
        `${hex} with ${available} bytes`,
      );
    }
    assert.equal(
      addressHeaderLength((i) => withData[i], header.length),
      header.length,
    );
    assert.equal(
      addressHeaderLength((i) => withData[i], withData.length),
      header.length,
    );
  }
});

test('an unknown address type and an empty domain name are protocol errors at once', () => {
  for (const atyp of [0, 2, 5, 0x7f, 0xff]) {
    assert.throws(() => addressHeaderLength(() => atyp, 1), {
      code: 'ERR_CIPHERBENCH_PROTOCOL',
      message: `unknown address type ${atyp}`,
    });
  }
  const empty = Buffer.from([3, 0]);
  assert.throws(() => addressHeaderLength((i) => empty[i], 2), {
    code: 'ERR_CIPHERBENCH_PROTOCOL',
    message: /empty domain name/,
  });
});

test('a domain name holds 1 to 255 bytes, counted in UTF-8', () => {
  const longest = 'a'.repeat(255);
  const header = encodeAddressHeader({ host: longest, port: 1 });
  assert.equal(header.length, 1 + 1 + 255 + 2);
  assert.equal(
    addressHeaderLength((i) => header[i], header.length),
    header.length,
  );
  assert.deepEqual(decodeAddressHeader(header), { host: longest, port: 1 });
  assert.throws(() => encodeAddressHeader({ host: 'a'.repeat(256), port: 1 }), /1 to 255 bytes/);
  assert.throws(() => encodeAddressHeader({ host: 'é'.repeat(128), port: 1 }), /1 to 255 bytes/);
  assert.deepEqual(decodeAddressHeader(encodeAddressHeader({ host: 'bücher.example', port: 443 })), {
    host: 'bücher.example',
    port: 443,
  });
});
