import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { prepareUdpChain } from '../../lib/chain/udp-form.js';
import { newPsk } from '../../lib/crypto/aead-2022-methods.js';
import { hostileDatagrams } from '../../benchmark/programs/support/hostile.js';
import { fdCount, largestAnonymousMappings, rssParts } from '../../benchmark/programs/support/proc-stats.js';
import { startRelayClient, startRelayServer, stopAll } from '../support/processes.js';
import { startUdpEchoServer, udpEchoTransfer, udpSender } from '../support/udp-echo.js';
import { CATALOGUE } from '../../lib/presets/index.js';

// The UDP relay server under hostile datagrams, through the CLI as it runs:
// garbage of every length up to the largest datagram, truncated and
// bit-flipped datagrams, another key's, replayed SIP022 datagrams, then
// 10,000 valid datagrams each from a sender of its own (a spoofed-source
// flood: more senders than --udp-max-associations). Meanwhile and after, a
// genuine association carries its datagrams, the server prints no stack
// trace, and its memory grows by less than 50 MB. Its summary line counts
// what it refused.
//
// In test/serial/, alone, where it went when load beside it let the
// flood's buffers pile up before V8 collected them. The server has its
// young generation collected every 2 MB of datagrams read, the buffers
// freed in that pause (lib/relay/udp/young-collection.js); where the rest
// of its growth lives is in docs/notes/reliability.md.
const SPOOFED = 10_000;
const TIMEOUT_S = 8;
const CHAINS = [
  {
    label: '2022-blake3-aes-256-gcm',
    presets: [{ name: 'ss-2022', params: { method: '2022-blake3-aes-256-gcm' } }],
    key: newPsk('2022-blake3-aes-256-gcm'),
  },
  {
    label: 'aes-256-gcm',
    presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }],
    key: 'udp-hostile-password',
  },
];

const sendFrom = (socket, datagram, port) =>
  new Promise((resolve) => socket.send(datagram, port, '127.0.0.1', () => resolve()));

// Senders of their own: each socket bound to an address of 127.0.0.0/8 no
// other uses, so no two share an association, in batches that keep the
// test's own descriptors few.
async function flood(port, makeDatagram, count, batch = 100) {
  for (let start = 0; start < count; start += batch) {
    const sockets = await Promise.all(
      Array.from({ length: Math.min(batch, count - start) }, (_, offset) => {
        const i = start + offset;
        const socket = dgram.createSocket('udp4');
        return new Promise((resolve, reject) => {
          socket.once('error', reject);
          socket.bind(0, `127.${2 + Math.floor(i / 62_500)}.${Math.floor(i / 250) % 250}.${(i % 250) + 1}`, () =>
            resolve(socket),
          );
        });
      }),
    );
    await Promise.all(sockets.map((socket) => sendFrom(socket, makeDatagram(), port)));
    // Spaced, so the flood tests the table rather than the kernel's buffer.
    await delay(30);
    for (const socket of sockets) socket.close();
  }
}

for (const { label, presets, key } of CHAINS) {
  describe(`UDP relay server under hostile datagrams: ${label}`, () => {
    let echo;
    before(async () => {
      echo = await startUdpEchoServer();
    });
    after(async () => {
      await stopAll();
      await echo.close();
    });

    test(
      'no crash, no stack trace, bounded memory, a genuine association served during and after',
      { timeout: 240_000 },
      async (t) => {
        const udp = ['--udp', '--udp-timeout', String(TIMEOUT_S), '--log-level', 'info'];
        const server = await startRelayServer({ key, presets, extra: udp });
        const client = await startRelayClient({
          serverPort: server.port,
          forwardPort: echo.port,
          key,
          presets,
          extra: udp,
        });
        await udpEchoTransfer({ port: client.port, count: 200 });
        // Anonymous and file-backed memory apart, at the start and at the
        // peak, so a failure says which grew.
        const baseline = rssParts(server.pid);
        let peak = baseline;
        const sample = () => {
          const now = rssParts(server.pid);
          if (now.rss > peak.rss) peak = now;
        };
        const sampler = setInterval(sample, 100);
        // Whatever fails, nothing of the test may keep this file running.
        t.after(() => clearInterval(sampler));

        const form = prepareUdpChain(CATALOGUE, presets, { password: key });
        const genuine = form.client().encode({ host: '127.0.0.1', port: echo.port }, randomBytes(1200));
        const probe = dgram.createSocket('udp4');
        await new Promise((resolve) => probe.bind(0, '127.0.0.1', resolve));
        t.after(() => probe.close());
        const foreign = () =>
          prepareUdpChain(CATALOGUE, presets, {
            password: presets[0].name === 'ss-2022' ? newPsk(presets[0].params.method) : 'wrong key',
          })
            .client()
            .encode({ host: '127.0.0.1', port: echo.port }, randomBytes(100));
        const hostile = [
          ...hostileDatagrams(genuine, foreign),
          // Valid, but naming port 0 or a target off this machine.
          form.client().encode({ host: '127.0.0.1', port: 0 }, randomBytes(100)),
          form.client().encode({ host: '192.0.2.1', port: 53 }, randomBytes(100)),
        ];
        // The genuine association carries on through all of it.
        // Patient: on two loaded cores a flood of new associations can hold
        // the server for seconds, and a datagram lost then is sent again.
        // One sender for during and after: its association predates the
        // flood, and the table (full of the flood's until they idle out)
        // must keep serving it.
        const genuineSender = await udpSender();
        t.after(() => genuineSender.close());
        const during = udpEchoTransfer({
          port: client.port,
          count: 1000,
          window: 4,
          retryMs: 1000,
          attempts: 60,
          sender: genuineSender,
        }).catch((error) => error);
        for (const datagram of hostile) await sendFrom(probe, datagram, server.port);
        // The same valid datagram five times: SIP022 relays it once.
        for (let i = 0; i < 5; i++) await sendFrom(probe, genuine, server.port);
        await flood(
          server.port,
          () => form.client().encode({ host: '127.0.0.1', port: echo.port }, randomBytes(1200)),
          SPOOFED,
        );
        const carried = await during;
        assert.ok(!(carried instanceof Error), `the genuine association during the storm: ${carried.message}`);
        const afterStorm = await udpEchoTransfer({ port: client.port, count: 200, sender: genuineSender });
        clearInterval(sampler);
        sample();
        const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);
        const growth = (peak.rss - baseline.rss) / 2 ** 20;
        const parts = `anonymous ${mb(baseline.anon)} -> ${mb(peak.anon)} MB, file-backed ${mb(baseline.file)} -> ${mb(peak.file)} MB`;
        t.diagnostic(`server RSS ${mb(baseline.rss)} MB before, +${growth.toFixed(1)} MB at the peak (${parts})`);
        // Past the bound, where it went: a malloc arena, or V8's pages.
        const where = growth < 50 ? '' : `; largest anonymous mappings now: ${largestAnonymousMappings(server.pid)}`;
        assert.ok(
          growth < 50,
          `server RSS grew by ${growth.toFixed(1)} MB (baseline ${mb(baseline.rss)} MB; ${parts}${where})`,
        );
        assert.ok(afterStorm.sent.length === 200);

        // Once the flood's associations are idle past --udp-timeout, the table
        // has room again: a new sender is served.
        await delay((TIMEOUT_S * 1.25 + 1) * 1000);
        const fresh = await startRelayClient({
          serverPort: server.port,
          forwardPort: echo.port,
          key,
          presets,
          extra: udp,
        });
        await udpEchoTransfer({ port: fresh.port, count: 200 });
        assert.ok(fdCount(server.pid) < 200, `server holds ${fdCount(server.pid)} descriptors once the flood is idle`);

        server.kill('SIGTERM');
        await server.exited;
        const summary =
          /udp relay server: (\d+) datagrams, (\d+) relayed, (\d+) replies, (\d+) refused \((\d+) replays\), (\d+) over the association cap, (\d+) to a refused target/.exec(
            server.output,
          );
        assert.ok(summary, server.output);
        t.diagnostic(summary[0]);
        const [, , , , refused, replays, overCap, targetsRefused] = summary.map(Number);
        assert.equal(targetsRefused, 2, 'port 0 and a target off this machine');
        // All but the two valid ones, whose targets are refused after they open.
        assert.ok(refused >= hostile.length - 2, `refused ${refused} of ${hostile.length} hostile datagrams`);
        if (presets[0].name === 'ss-2022') assert.ok(replays >= 4, `${replays} replays refused`);
        assert.ok(overCap > 0, 'the flood filled the table');
        assert.equal(
          server.output.match(/associations \(--udp-max-associations\) in use/g)?.length,
          1,
          'a full table is said once',
        );
        assert.doesNotMatch(server.output, /\n\s+at .+:\d+:\d+/, 'no stack trace');
      },
    );
  });
}
