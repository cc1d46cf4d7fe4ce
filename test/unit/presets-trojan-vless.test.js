import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prepareChain } from '../../lib/chain/pipeline.js';
import { validateChain } from '../../lib/chain/validate.js';
import { pipelinePair } from '../../benchmark/programs/support/pipeline-pair.js';
import { assertEverySplit } from '../support/splits.js';
import { CATALOGUE } from '../../lib/presets/index.js';

// Known-answer vectors for trojan and vless, the request bytes written out
// from the protocols' documents (trojan-gfw docs/protocol.md, V2Ray's
// proxy/vless/encoding), and how their servers read them.
// SHA-224("abc") is FIPS 180-4's example digest.
const ABC_SHA224 = '23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7';
const ID = 'a3482e88-686a-4a58-8126-99c9df64b7bf';
const hex = (text) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const ascii = (text) => Buffer.from(text, 'ascii').toString('hex');

const TROJAN = [{ name: 'trojan' }];
const VLESS = [{ name: 'vless', params: { id: ID } }];

const clientBytes = (chain, target, password = 'abc') => {
  const out = [];
  const encode = prepareChain(CATALOGUE, chain, { password })('client', { target }).encoder((data) =>
    out.push(Buffer.from(data)),
  );
  encode(Buffer.from('GET'));
  return Buffer.concat(out);
};

function serverSide(chain, password = 'abc') {
  const targets = [];
  const passed = [];
  const server = prepareChain(CATALOGUE, chain, { password })('server', {
    onTarget: (address) => targets.push(address),
  });
  const decode = server.decoder((data) => passed.push(Buffer.from(data)));
  return { targets, passed, decode };
}

const TROJAN_IPV4 = hex(`${ascii(ABC_SHA224)} 0d0a 01 01 7f000001 01bb 0d0a ${ascii('GET')}`);
const TROJAN_DOMAIN = hex(`${ascii(ABC_SHA224)} 0d0a 01 03 0b ${ascii('example.com')} 0050 0d0a ${ascii('GET')}`);
const VLESS_IPV4 = hex(`00 a3482e88686a4a58812699c9df64b7bf 00 01 01bb 01 7f000001 ${ascii('GET')}`);
const VLESS_DOMAIN = hex(
  `00 a3482e88686a4a58812699c9df64b7bf 00 01 0050 02 0b ${ascii('example.com')} ${ascii('GET')}`,
);
const VLESS_IPV6 = hex(
  `00 a3482e88686a4a58812699c9df64b7bf 00 01 0050 03 00000000000000000000000000000001 ${ascii('GET')}`,
);

test('trojan: hex SHA-224 of the password, CRLF, CONNECT, the SOCKS5 address, CRLF, then the payload', () => {
  assert.deepEqual(clientBytes(TROJAN, { host: '127.0.0.1', port: 443 }), TROJAN_IPV4);
  assert.deepEqual(clientBytes(TROJAN, { host: 'example.com', port: 80 }), TROJAN_DOMAIN);
});

test('vless: version 0, the UUID, no addons, TCP, port, address type and address, then the payload', () => {
  assert.deepEqual(clientBytes(VLESS, { host: '127.0.0.1', port: 443 }), VLESS_IPV4);
  assert.deepEqual(clientBytes(VLESS, { host: 'example.com', port: 80 }), VLESS_DOMAIN);
  assert.deepEqual(clientBytes(VLESS, { host: '::1', port: 80 }), VLESS_IPV6);
});

for (const [name, chain, bytes, target] of [
  ['trojan', TROJAN, TROJAN_DOMAIN, { host: 'example.com', port: 80 }],
  ['vless', VLESS, VLESS_IPV6, { host: '::1', port: 80 }],
]) {
  test(`${name}: the server names the target and passes the payload on, wherever the request is cut`, () => {
    assertEverySplit(
      assert,
      bytes,
      (pieces) => {
        const side = serverSide(chain);
        for (const piece of pieces) side.decode(piece);
        assert.deepEqual(side.targets, [target]);
        return side.passed;
      },
      Buffer.from('GET'),
    );
  });
}

test('vless: the server answers version 0 and no addons ahead of the first bytes back, and the client takes them off', () => {
  const pair = pipelinePair(VLESS);
  pair.clientWrite(Buffer.from('ping'));
  pair.flush();
  assert.deepEqual(pair.receivedByServer(), Buffer.from('ping'));
  const wire = [];
  const server = prepareChain(CATALOGUE, VLESS, { password: 'x' })('server', { onTarget: () => {} });
  server.decoder(() => {})(VLESS_IPV4);
  server.encoder((data) => wire.push(Buffer.from(data)))(Buffer.from('pong'));
  assert.deepEqual(Buffer.concat(wire), hex(`0000 ${ascii('pong')}`));
  pair.serverWrite(Buffer.from('pong'));
  pair.flush((bytes) => Array.from(bytes, (byte) => Buffer.from([byte])));
  assert.deepEqual(pair.receivedByClient(), Buffer.from('pong'));
});

test('vless: a wrong id, another version, addons or a UDP command are refused as protocol errors', () => {
  const refusals = [
    [hex('00 b831381d63244d53ad4f8cda48b30811 00 01 01bb 01 7f000001'), /unknown VLESS user id/],
    [hex('01'), /unknown VLESS version 1/],
    [hex('00 a3482e88686a4a58812699c9df64b7bf 02 0a00 01 01bb 01 7f000001'), /addons/],
    [hex('00 a3482e88686a4a58812699c9df64b7bf 00 02 01bb 01 7f000001'), /command 2/],
  ];
  for (const [bytes, message] of refusals) {
    const side = serverSide(VLESS);
    assert.throws(
      () => side.decode(bytes),
      (error) => error.code === 'ERR_CIPHERBENCH_PROTOCOL' && message.test(error.message),
    );
    assert.deepEqual(side.targets, []);
  }
});

test('trojan: a wrong password is refused at its first wrong byte, before the line ends', () => {
  const side = serverSide(TROJAN, 'not abc');
  assert.throws(
    () => side.decode(TROJAN_IPV4.subarray(0, 3)),
    (error) => error.code === 'ERR_CIPHERBENCH_PROTOCOL' && /not a trojan request/.test(error.message),
  );
  const udp = Buffer.from(TROJAN_IPV4);
  udp[58] = 3;
  assert.throws(() => serverSide(TROJAN).decode(udp), /command 3/);
});

test('trojan with a fallback: what is not a trojan request goes there, every byte of it; a valid one goes to its target', () => {
  const chain = [{ name: 'trojan', params: { fallback: '127.0.0.1:8080' } }];
  const probe = Buffer.from('GET / HTTP/1.1\r\nHost: example.com\r\n\r\n');
  const wrong = serverSide(chain);
  wrong.decode(probe.subarray(0, 5));
  wrong.decode(probe.subarray(5));
  assert.deepEqual(wrong.targets, [{ host: '127.0.0.1', port: 8080 }]);
  assert.deepEqual(Buffer.concat(wrong.passed), probe);
  const right = serverSide(chain);
  right.decode(TROJAN_IPV4);
  assert.deepEqual(right.targets, [{ host: '127.0.0.1', port: 443 }]);
  assert.deepEqual(Buffer.concat(right.passed), Buffer.from('GET'));
});

test('bad parameters: a vless id that is not a UUID, a fallback that is not host:port, tls suites, versions and files', () => {
  const problem = (chain) =>
    validateChain(CATALOGUE, chain)
      .map(({ field, message }) => `${field}: ${message}`)
      .join('\n');
  assert.match(problem([{ name: 'vless', params: { id: 'not-a-uuid' } }]), /^presets\[0\]\.params\.id: must be a UUID/);
  assert.match(problem([{ name: 'vless' }]), /^presets\[0\]\.params\.id: missing/);
  for (const fallback of ['8080', 'example.com', 'host:0', 'host:65536', '[not-v6]:80', 'a b:80']) {
    assert.match(
      problem([{ name: 'trojan', params: { fallback } }]),
      /^presets\[0\]\.params\.fallback: must be host:port/,
      fallback,
    );
  }
  assert.equal(problem([{ name: 'trojan', params: { fallback: '[::1]:8080' } }, { name: 'tls' }]), '');
  assert.match(
    problem([{ name: 'trojan' }, { name: 'tls', params: { ciphers: 'TLS_AES_128_CCM_SHA256' } }]),
    /^presets\[1\]\.params\.ciphers: unknown TLS 1\.3 suite "TLS_AES_128_CCM_SHA256"; valid: TLS_AES_128_GCM_SHA256/,
  );
  assert.match(
    problem([{ name: 'trojan' }, { name: 'tls', params: { version: '1.2', ciphers: 'TLS_AES_128_GCM_SHA256' } }]),
    /params\.ciphers: unknown TLS 1\.2 suite/,
  );
  assert.equal(
    problem([
      { name: 'trojan' },
      {
        name: 'tls',
        params: { version: '1.2', ciphers: ['ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-CHACHA20-POLY1305'] },
      },
    ]),
    '',
  );
  assert.match(
    problem([{ name: 'trojan' }, { name: 'tls', params: { version: '1.1' } }]),
    /params\.version: unknown version "1\.1" \(did you mean "1\.3"\?\); valid: 1\.3, 1\.2/,
  );
  assert.match(
    problem([
      { name: 'trojan' },
      { name: 'tls', params: { cert: '/nonexistent/cert.pem', key: '/nonexistent/key.pem' } },
    ]),
    /params\.cert: cannot read certificate file "\/nonexistent\/cert\.pem" \(ENOENT\)/,
  );
  assert.match(
    problem([{ name: 'trojan' }, { name: 'tls', params: { ca: '/etc/hostname' } }]),
    /params\.ca: "\/etc\/hostname" holds no PEM certificate/,
  );
  assert.match(problem([{ name: 'trojan' }, { name: 'tls', params: { cert: '/etc/hostname' } }]), /params\.cert: /);
  assert.match(
    problem([{ name: 'tls' }, { name: 'trojan' }]),
    /presets\[0\]\.name: tls carries the whole chain and must be the last preset/,
  );
});
