import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { prepareChain } from '../../../lib/chain/pipeline.js';
import { chainIsAuthenticated } from '../../../lib/chain/requirements.js';
import { isProtocolError } from '../../../lib/wire/protocol-error.js';
import {
  aeadMethod,
  clientBytes,
  emptyChunkFlood,
  isDisguised,
  keyIsTheSecret,
  sealedLength,
  sendHostile,
} from '../../../benchmark/programs/support/hostile.js';
import { pipelinePair } from '../../../benchmark/programs/support/pipeline-pair.js';
import { assertSteadyStillFlows, startSteadyRelayPair } from '../steady-relay-pair.js';
import { CATALOGUE } from '../../../lib/presets/index.js';

// A relay server under hostile input, for each chain it is given (from
// preset-chains.js): each bad connection is refused for the right reason
// (read from its debug log) and held until the handshake timeout, while a
// valid connection opened before the attack keeps flowing and the process
// stays up without a trace.
const KEY = 'hostile-test-password';

export function hostileSuite(chains) {
  for (const { label, presets, password = KEY, wrongPassword = 'not-the-key' } of chains) {
    describe(`relay server under hostile input (${label})`, () => {
      const pair = startSteadyRelayPair({ key: password, presets });
      const target = () => ({ host: '127.0.0.1', port: pair.echo.port });
      const hostile = (bytes, options = {}) => sendHostile({ port: pair.server.port, bytes, ...options });

      const expectRefused = async (bytes, reason, options) => {
        const before = pair.server.output.length;
        const { ms, how } = await hostile(bytes, options);
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.match(pair.server.output.slice(before), reason);
        return { ms, how };
      };

      // Each kind where the chain can make it: a wrong key where --key is the
      // secret, a flipped tag where the wire is SIP004's.
      if (keyIsTheSecret(presets, password, wrongPassword)) {
        test('a wrong key is refused, whatever it decodes to', () =>
          expectRefused(
            clientBytes({ presets, password: wrongPassword, target: { host: '127.0.0.1', port: 9 } }),
            /discarding its bytes|no target named/,
          ));
      }
      const method = aeadMethod(presets);
      if (method) {
        test('one flipped bit in a tag', () => {
          const bytes = clientBytes({ presets, password: password, target: target() });
          bytes[bytes.length - 1] ^= 0x10;
          return expectRefused(bytes, /tag mismatch/);
        });
      }
      if (method) {
        test('a length field over 0x3FFF', () =>
          expectRefused(
            sealedLength({ method, password: password, length: 0x4000 }),
            /chunk length 16384 exceeds 0x3FFF/,
          ));
        test('a length field of 0', () =>
          expectRefused(sealedLength({ method, password: password, length: 0 }), /chunk length 0\b/));
        test('a valid-looking salt followed by garbage', () => expectRefused(randomBytes(232), /tag mismatch/));
      }
      // A disguise's client holds the request until the server's handshake
      // answer, so bytes made offline carry no request to refuse.
      if (!isDisguised(presets))
        test('a target that is not on loopback', () =>
          expectRefused(
            clientBytes({ presets, password: password, target: { host: '10.1.2.3', port: 80 } }),
            /refused target 10\.1\.2\.3:80: not loopback/,
          ));
      test('a truncated stream, then FIN: reset at the FIN', async () => {
        const { ms, how } = await expectRefused(
          clientBytes({ presets, password: password, target: target() }).subarray(0, 4),
          /ended before naming a target/,
          { end: true },
        );
        assert.equal(how, 'reset');
        assert.ok(ms < 900, `reset after ${ms} ms`);
      });
      test('one byte, then a stall: reset at the handshake timeout', async () => {
        const before = pair.server.output.length;
        const { ms, how } = await hostile(Buffer.from([1]), { timeoutMs: 4000 });
        assert.ok(ms >= 900 && ms < 3000, `closed after ${ms} ms, handshake timeout is 1 s`);
        assert.equal(how, 'reset');
        assert.match(
          pair.server.output.slice(before),
          /no target named within 1000 ms|discarding its bytes until the handshake timeout/,
        );
      });
      test('random bytes of random length, 200 connections', async () => {
        await Promise.all(
          Array.from({ length: 200 }, () => hostile(randomBytes(1 + Math.floor(Math.random() * 4096)), { end: true })),
        );
      });

      test('afterwards: the process is up, printed no stack, and the steady connection still flows', async () => {
        await assertSteadyStillFlows(pair, { payload: randomBytes(1024 * 1024), freshBytes: 8 * 1024 * 1024 });
      });
    });
  }
}

// The same input in process, fed to a server pipeline by hand, for what
// needs no socket: how a stream cut inside a record ends, and a flood of
// sealed empty chunks.
const TARGET = { host: '127.0.0.1', port: 5201 };

// Chains with no records to cut: a stream cipher's bytes are all alike, and
// only the protocol around it (none here) could mark an end.
const frames = (presets) =>
  chainIsAuthenticated(CATALOGUE, presets) || presets.some(({ name }) => name === 'v2ray-vmess');

export function hostileInProcessSuite(chains) {
  for (const { label, presets, password = KEY } of chains) {
    describe(`hostile input in process (${label})`, () => {
      test(
        'a stream cut inside a record ends as a reset, not a clean end',
        { skip: !frames(presets) && 'no records: a stream cipher marks no end' },
        () => {
          for (const keep of [1, 5, 17, 100]) {
            const pair = pipelinePair(presets, { password, target: TARGET });
            pair.clientWrite(Buffer.from('hello'));
            pair.flush();
            assert.equal(pair.targets.length, 1);
            // A whole stream ends cleanly, where the protocol has no end
            // record (VMess's is the empty chunk, which the client sends at
            // its own end).
            if (!presets.some(({ name }) => name === 'v2ray-vmess')) pair.serverEnded();
            pair.clientWrite(randomBytes(3000));
            pair.flush((bytes) => [bytes.subarray(0, bytes.length - keep)]);
            assert.throws(
              () => pair.serverEnded(),
              (error) => isProtocolError(error) && /truncated|end/.test(error.message),
              `cut ${keep} bytes short`,
            );
          }
        },
      );

      const flood = (count) => emptyChunkFlood({ presets, password, target: TARGET, count });
      if (flood(0)) {
        test('a request, then 1,000 sealed empty chunks: refused within the first few', () => {
          // Made now: an ss-2022 request made when the file loaded may be
          // older than the 30 s its header may be by the time this runs.
          const bytes = flood(1000);
          let named = false;
          const pipeline = prepareChain(CATALOGUE, presets, { password })('server', { onTarget: () => (named = true) });
          pipeline.encoder(() => {});
          assert.throws(
            () => pipeline.decoder(() => {})(bytes),
            (error) => isProtocolError(error) && /chunk length 0|empty chunks in a row/.test(error.message),
          );
          assert.equal(named, true, 'the request before them named its target');
        });
      }
    });
  }
}
