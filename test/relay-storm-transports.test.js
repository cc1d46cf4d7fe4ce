import { randomBytes } from 'node:crypto';
import { clientBytes, stormKinds } from '../benchmark/programs/support/hostile.js';
import { encodeFrame } from '../lib/presets/ws.js';
import { MAX_HEAD_BYTES } from '../lib/wire/http-upgrade.js';
import { stormSuite } from './support/suites/storm.js';
import { onTheWire, upgradeHead } from './support/transport-wire.js';

// The storm suite (test/support/suites/storm.js) against relay servers
// whose chains end in ws and httpupgrade: 3,000 hostile connections each
// (300 of them one byte and a stall), under the suite's bound of +50 MB
// RSS, while a valid stream flows through the transport. Each of the
// chain's own hostile kinds (stormKinds) arrives inside a valid upgrade;
// beside them, what breaks the transport itself. relay-hostile-ws.test.js
// checks each of those once, how and when it is refused; here they come by
// the thousand. The kinds that would hold a connection until the handshake
// timeout end with a FIN or a cut instead, so that the stalls alone hold.
const CHAINS = [
  {
    label: 'ss aes-256-gcm + ws',
    presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }, { name: 'ws' }],
  },
  {
    label: 'vless + httpupgrade',
    presets: [{ name: 'vless', params: { id: 'a3482e88-686a-4a58-8126-99c9df64b7bf' } }, { name: 'httpupgrade' }],
  },
];

const masked = (payload, options = {}) => Buffer.concat(encodeFrame([payload], { masked: true, ...options }));
const hex = (text) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

// What breaks ws itself, each after a valid upgrade.
const wsKinds = (presets, request) => {
  const head = upgradeHead(presets);
  return {
    'ws: a frame announcing 2^63 bytes': () => ({
      bytes: Buffer.concat([head, hex('82 ff 8000000000000000 37fa213d')]),
    }),
    'ws: a frame announcing 2^31 bytes, 64 KB of them, then FIN': () => ({
      bytes: Buffer.concat([head, hex('82 ff 0000000080000000 37fa213d'), randomBytes(64 * 1024)]),
      end: true,
    }),
    'ws: an unmasked frame carrying a valid request': () => ({
      bytes: Buffer.concat([head, ...encodeFrame([request()], { masked: false })]),
    }),
    'ws: 200 pings': () => ({
      bytes: Buffer.concat([head, ...Array.from({ length: 200 }, () => masked(Buffer.alloc(125, 1), { opcode: 0x9 }))]),
    }),
    'ws: a message never finished, then FIN': () => ({
      bytes: Buffer.concat([head, masked(Buffer.concat([request(), Buffer.alloc(1000)])).subarray(0, 2 + 2 + 4 + 10)]),
      end: true,
    }),
  };
};

// What breaks the HTTP upgrade both transports open with.
const upgradeKinds = (presets) => {
  const head = upgradeHead(presets);
  return {
    'random bytes, no upgrade': () => ({ bytes: randomBytes(1 + Math.floor(Math.random() * 4096)), end: true }),
    'an upgrade request never finished, then a cut': () => ({
      bytes: head.subarray(0, Math.floor(Math.random() * (head.length - 4))),
      cutAfterMs: 5,
    }),
    [`an upgrade request over ${MAX_HEAD_BYTES} bytes`]: () => ({
      bytes: Buffer.from(`GET /cipherbench HTTP/1.1\r\n${'X-Padding: aaaaaaaaaaaaaaaaaaaaaaaa\r\n'.repeat(600)}`),
    }),
    'a request for another path': () => ({
      bytes: Buffer.from(head.toString('latin1').replace('/cipherbench', '/elsewhere'), 'latin1'),
      end: true,
    }),
  };
};

function transportKinds(presets, target, password, wrongPassword) {
  const inside = Object.entries(stormKinds(presets, target, password, wrongPassword)).map(([name, kind]) => [
    `${name}, inside the transport`,
    () => {
      const made = kind();
      return { ...made, bytes: onTheWire(presets, made.bytes) };
    },
  ]);
  const request = () => clientBytes({ presets, password, target, payload: randomBytes(512) });
  return {
    ...Object.fromEntries(inside),
    ...upgradeKinds(presets),
    ...(presets.some(({ name }) => name === 'ws') ? wsKinds(presets, request) : {}),
  };
}

stormSuite(CHAINS, { kinds: transportKinds, connections: 3_000, stalls: 300 });
