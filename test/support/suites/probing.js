import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { clientHello } from '../../../lib/presets/obfs/tls-handshake.js';
import { isLoopbackHost } from '../../../lib/relay/loopback.js';
import { isProtocolError } from '../../../lib/wire/protocol-error.js';
import { startEchoServer } from '../echo-server.js';
import {
  answersHandshake,
  clientBytes,
  keyIsTheSecret,
  namedTarget,
  sealedPlaintext,
  sendHostile,
} from '../../../benchmark/programs/support/hostile.js';
import { startRelayServer, stopAll } from '../processes.js';

// Probing resistance, for each chain it is given (from preset-chains.js):
// whatever a connection without the key sends, of any length from 1 to
// 2,000 bytes, and whatever one with the key sends that the server refuses,
// the server answers nothing, keeps it open until the handshake timeout and
// then resets it: the same time and the same manner for all of them, so
// neither the method (from a length threshold) nor a refusal's reason shows.
// obfs-tls1.2-ticket answers a ClientHello for one of its server names
// before the cipher inside refuses (a request made with the key carries
// one); its chains are held and reset alike all the same. obfs-http and
// simple-obfs answer nothing before the target does.
const KEY = 'probing-test-password';
// Half a second: long enough to tell a reset at the timeout from one at
// once, short enough that 26 chains' waits add up to little.
const TIMEOUT_MS = 500;
const LENGTHS = [
  1, 2, 7, 8, 12, 15, 16, 17, 18, 28, 31, 32, 33, 34, 35, 42, 49, 50, 51, 64, 100, 255, 256, 512, 1000, 1024, 1500,
  2000,
];

// Random bytes of `length` that are a probe, not a request. Under a chain
// that authenticates nothing (a stream cipher) random bytes read as a
// random header, and about 1 in 65,536 names a 127.x.x.x target: the
// server connects, as it must for a request it cannot tell from a
// client's, and resets at once when nothing listens there (seen: "64
// random bytes: reset after 26 ms"; docs/security.md). Such a draw is
// drawn again; one naming a target off loopback stays, a refusal held
// like any other.
function randomProbe(presets, password, length) {
  for (;;) {
    const bytes = randomBytes(length);
    const target = namedTarget(presets, password, bytes);
    if (!target || !isLoopbackHost(target.host)) return bytes;
  }
}

// Probes made with the chain itself, where the chain can make them: a
// wrong key (when --key is the secret), an unknown address type (when the
// chain carries a header the client does not check), a refused target.
function keyedProbes(presets, echoPort, password, wrongPassword) {
  const probes = [
    {
      what: 'a target beyond loopback',
      bytes: clientBytes({ presets, password: password, target: { host: '10.9.8.7', port: 443 } }),
    },
  ];
  if (keyIsTheSecret(presets, password, wrongPassword)) {
    probes.push({
      what: 'a request with a wrong key',
      bytes: clientBytes({ presets, password: wrongPassword, target: { host: '127.0.0.1', port: echoPort } }),
    });
  }
  try {
    probes.push({
      what: 'an unknown address type',
      bytes: sealedPlaintext({ presets, password: password, plaintext: Buffer.from([9, 1, 2, 3, 4, 5, 6, 7]) }),
    });
  } catch (error) {
    if (!isProtocolError(error)) throw error;
  }
  return probes;
}

export function probingSuite(chains) {
  for (const { label, presets, password = KEY, wrongPassword = 'not-the-key' } of chains) {
    describe(`probes are held until the handshake timeout, then reset alike (${label})`, () => {
      let echo;
      let server;
      before(async () => {
        echo = await startEchoServer();
        server = await startRelayServer({
          key: password,
          presets,
          extra: ['--handshake-timeout', String(TIMEOUT_MS / 1000)],
        });
      });
      after(async () => {
        await stopAll();
        await echo?.close();
      });

      test(`random probes of ${LENGTHS.length} lengths from 1 to 2,000 bytes, and refused requests with the key`, async () => {
        const probes = LENGTHS.map((length) => ({
          what: `${length} random bytes`,
          bytes: randomProbe(presets, password, length),
          random: true,
        }));
        // A disguise answers its own handshake only: a TLS hello for a
        // server name not the chain's is a probe like any other.
        if (presets.some(({ name }) => name === 'obfs-tls1.2-ticket')) {
          probes.push({
            what: 'a TLS ClientHello for another server name',
            bytes: clientHello('other.example'),
            random: true,
          });
        }
        probes.push(...keyedProbes(presets, echo.port, password, wrongPassword));
        const results = await Promise.all(
          probes.map(({ bytes }) => sendHostile({ port: server.port, bytes, timeoutMs: TIMEOUT_MS + 3000 })),
        );
        const lines = results.map(
          ({ ms, how, received }, i) => `${probes[i].what}: ${how} after ${ms} ms, ${received.length} bytes back`,
        );
        for (const [i, { ms, how, received }] of results.entries()) {
          assert.equal(how, 'reset', lines[i]);
          if (probes[i].random || !answersHandshake(presets)) assert.equal(received.length, 0, lines[i]);
          // Not before the timeout; after it by no more than a loaded
          // machine's scheduling (test files run side by side), far below
          // any other timer of the server's.
          assert.ok(ms >= TIMEOUT_MS - 50 && ms < TIMEOUT_MS + 1500, lines[i]);
        }
        assert.equal(echo.received.length, 0, 'no probe reached a target');
      });
    });
  }
}
