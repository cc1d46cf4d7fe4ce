import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import { before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { newPsk } from '../lib/crypto/aead-2022-methods.js';
import { freePorts } from './support/ports.js';
import { explainWith, startProcess, startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';
import { socks5UdpAssociate, socks5UdpFrame } from './support/socks5-udp.js';
import { assertUdpCarried } from './support/udp-echo.js';
import { UDP, udpChain, udpEchoForSuite } from './support/udp-suite.js';

// SOCKS5 UDP ASSOCIATE through `relay client --inbound socks5 --udp`, with
// the test's own SOCKS5 UDP client (support/socks5-udp.js), proven first
// against shadowsocks-libev's ss-local -u:
//   ss-local -u -> ss-server -u -> UDP echo   (the test's client, against the reference)
//   ours -> ours -> UDP echo
//   ours -> ss-server -u -> UDP echo           (our datagrams open in libev, its replies in ours)
//   ss-local -u -> ours -> UDP echo            (libev's open in ours, ours in libev)
// 2,000 datagrams of 1,200 bytes per path, each compared byte for byte on
// return (its SOCKS5 header naming the echo target as source) and at the
// echo target (SHA-256 over all); a lost one is sent again, a changed one
// fails. The same with 2022-blake3-aes-256-gcm against shadowsocks-rust
// (sslocal --protocol socks -U, ssserver -U), whose UDP has sessions.
//
// Then our client alone (its --log-level debug lines count the open
// associations): UDP ASSOCIATE behind a username and password, the
// association ends with its control connection and with --udp-timeout,
// --udp-max-associations refuses one more, only the
// control connection's address may send, and only from the port of its
// first datagram (another port of 127.0.0.1 is refused: replies have one
// place to go), and hostile headers are dropped with no stack trace.
const KEY = 'socks5-udp-password';
const METHODS = ['aes-256-gcm', 'aes-256-ctr'];

describe('SOCKS5 UDP ASSOCIATE, byte for byte, with shadowsocks-libev both ways', () => {
  const echo = udpEchoForSuite();

  for (const method of METHODS) {
    test(method, { timeout: 400_000 }, async (t) => {
      const presets = udpChain(method);
      if (!requirePrograms(t, 'ss-server', 'ss-local')) return;
      t.after(stopAll);
      const [theirServerPort, theirClientPort, theirOtherClientPort] = await freePorts(3);
      const ss = (command, args, port) =>
        startProcess(command, [...args, '-k', KEY, '-m', method], { ready: /listening at/, listening: port });
      const [ourServer, theirServer] = await Promise.all([
        startRelayServer({ key: KEY, presets, extra: UDP }),
        ss('ss-server', ['-u', '-s', '127.0.0.1', '-p', String(theirServerPort)], theirServerPort),
      ]);
      const local = (port, serverPort) =>
        ss(
          'ss-local',
          ['-u', '-s', '127.0.0.1', '-p', String(serverPort), '-b', '127.0.0.1', '-l', String(port)],
          port,
        );
      const [theirClient, theirClientToOurs, ourClient, ourClientToTheirs] = await Promise.all([
        local(theirClientPort, theirServerPort),
        local(theirOtherClientPort, ourServer.port),
        startRelayClient({ serverPort: ourServer.port, key: KEY, presets, inbound: 'socks5', extra: UDP }),
        startRelayClient({ serverPort: theirServerPort, key: KEY, presets, inbound: 'socks5', extra: UDP }),
      ]);
      const explain = explainWith([
        ourServer,
        theirServer,
        theirClient,
        theirClientToOurs,
        ourClient,
        ourClientToTheirs,
      ]);
      await carryThrough(
        t,
        echo,
        {
          'ss-local -> ss-server (the test client against the reference)': theirClientPort,
          'ours -> ours': ourClient.port,
          'ours -> ss-server': ourClientToTheirs.port,
          'ss-local -> ours': theirOtherClientPort,
        },
        explain,
      );
    });
  }
});

// Each path ({ name: the SOCKS5 port }) in turn: an association, the
// transfer through it, its time printed.
async function carryThrough(t, echo, paths, explain) {
  const frame = socks5UdpFrame({ host: '127.0.0.1', port: echo.port });
  for (const [path, port] of Object.entries(paths)) {
    let association;
    try {
      association = await socks5UdpAssociate({ port });
    } catch (error) {
      throw explain(path, error);
    }
    try {
      const started = performance.now();
      const {
        [path]: { retries },
      } = await assertUdpCarried(echo, { [path]: { ...association.relay, frame } }, { explain });
      t.diagnostic(`${path}: ${((performance.now() - started) / 1000).toFixed(2)} s, ${retries} sent again`);
    } finally {
      association.close();
    }
  }
}

// SIP022's UDP has sessions of its own on each side: one per association.
// shadowsocks-libev has no 2022 methods, so the reference is
// shadowsocks-rust (sslocal --protocol socks -U serves UDP ASSOCIATE).
describe('SOCKS5 UDP ASSOCIATE with a 2022 method, with shadowsocks-rust both ways', () => {
  const echo = udpEchoForSuite();

  test('2022-blake3-aes-256-gcm', { timeout: 400_000 }, async (t) => {
    if (!requirePrograms(t, 'ssserver', 'sslocal')) return;
    t.after(stopAll);
    const method = '2022-blake3-aes-256-gcm';
    const key = newPsk(method);
    const presets = udpChain(method);
    const [theirServerPort, theirClientPort] = await freePorts(2);
    const rust = (command, args) =>
      startProcess(command, [...args, '-k', key, '-m', method], { ready: /listening on / });
    const [ourServer, theirServer] = await Promise.all([
      startRelayServer({ key, presets, extra: UDP }),
      rust('ssserver', ['-U', '-s', `127.0.0.1:${theirServerPort}`]),
    ]);
    const [theirClient, ourClient, ourClientToTheirs] = await Promise.all([
      rust('sslocal', [
        '-U',
        '--protocol',
        'socks',
        '-b',
        `127.0.0.1:${theirClientPort}`,
        '-s',
        `127.0.0.1:${ourServer.port}`,
      ]),
      startRelayClient({ serverPort: ourServer.port, key, presets, inbound: 'socks5', extra: UDP }),
      startRelayClient({ serverPort: theirServerPort, key, presets, inbound: 'socks5', extra: UDP }),
    ]);
    const explain = explainWith([ourServer, theirServer, theirClient, ourClient, ourClientToTheirs]);
    await carryThrough(
      t,
      echo,
      {
        'sslocal -> ours': theirClientPort,
        'ours -> ours': ourClient.port,
        'ours -> ssserver': ourClientToTheirs.port,
      },
      explain,
    );
  });
});

// One datagram through an association and its echo back (retried: loopback
// UDP drops under load), or null when nothing comes back within `waitMs`.
function exchange(socket, relay, frame, data, { attempts = 5, waitMs = 1000 } = {}) {
  return new Promise((resolve) => {
    let attempt = 0;
    let timer;
    const onMessage = (received) => {
      const echoed = frame.decode(received);
      if (!echoed?.equals(data)) return;
      clearTimeout(timer);
      socket.off('message', onMessage);
      resolve(echoed);
    };
    const send = () => {
      if (attempt++ === attempts) {
        socket.off('message', onMessage);
        return resolve(null);
      }
      socket.send(frame.encode(data), relay.port, relay.host);
      timer = setTimeout(send, waitMs);
    };
    socket.on('message', onMessage);
    send();
  });
}

async function boundSocket(t, host = '127.0.0.1') {
  const socket = dgram.createSocket('udp4');
  await new Promise((resolve) => socket.bind(0, host, resolve));
  t.after(() => socket.close());
  return socket;
}

const waitFor = async (what, check, timeoutMs = 20_000) => {
  for (const start = Date.now(); !check(); await delay(50)) {
    if (Date.now() - start > timeoutMs) assert.fail(`${what}: not within ${timeoutMs} ms`);
  }
};

const openCount = (output) => {
  const counts = [...output.matchAll(/udp associate: (?:closed|\S+:\d+) \((\d+) open\)/g)];
  return counts.length === 0 ? null : Number(counts.at(-1)[1]);
};

describe('SOCKS5 UDP ASSOCIATE: lifetime, limits, strangers and hostile datagrams', () => {
  const presets = udpChain(METHODS[0]);
  const echo = udpEchoForSuite();
  let server;
  let frame;
  before(async () => {
    server = await startRelayServer({ key: KEY, presets, extra: UDP });
    frame = socks5UdpFrame({ host: '127.0.0.1', port: echo.port });
  });
  const client = (extra) =>
    startRelayClient({
      serverPort: server.port,
      key: KEY,
      presets,
      inbound: 'socks5',
      extra: ['--log-level', 'debug', ...extra],
    });

  test('without --udp, UDP ASSOCIATE is answered 7 (command not supported)', async () => {
    const plain = await client([]);
    await assert.rejects(socks5UdpAssociate({ port: plain.port }), (error) => error.reply === 7);
  });

  test('with --inbound-user, UDP ASSOCIATE follows the username and password', { timeout: 120_000 }, async (t) => {
    const auth = { user: 'udp-user', password: 'udp-password' };
    const relayClient = await client([...UDP, '--inbound-user', auth.user, '--inbound-password', auth.password]);
    await assert.rejects(socks5UdpAssociate({ port: relayClient.port }), /SOCKS5 method answer 05ff/);
    await assert.rejects(
      socks5UdpAssociate({ port: relayClient.port, auth: { ...auth, password: 'wrong' } }),
      /username\/password refused/,
    );
    const association = await socks5UdpAssociate({ port: relayClient.port, auth });
    t.after(association.close);
    assert.ok(await exchange(await boundSocket(t), association.relay, frame, randomBytes(100)));
  });

  test(
    'the association ends with its control connection, and the relay counts it gone',
    { timeout: 120_000 },
    async (t) => {
      const relayClient = await client(UDP);
      const association = await socks5UdpAssociate({ port: relayClient.port });
      const socket = await boundSocket(t);
      assert.ok(
        await exchange(socket, association.relay, frame, randomBytes(100)),
        'a datagram is carried while the connection is open',
      );
      assert.equal(openCount(relayClient.output), 1);
      association.close();
      await waitFor('the association closed', () => openCount(relayClient.output) === 0);
      assert.equal(
        await exchange(socket, association.relay, frame, randomBytes(100), { attempts: 2 }),
        null,
        'nothing comes back after the connection closed',
      );
    },
  );

  test(
    "only the client's address, from the port its first datagram came from; hostile datagrams dropped, no stack trace",
    { timeout: 120_000 },
    async (t) => {
      const relayClient = await client(UDP);
      const association = await socks5UdpAssociate({ port: relayClient.port });
      t.after(association.close);
      const [first, samePortElsewhere, otherAddress] = await Promise.all([
        boundSocket(t),
        boundSocket(t),
        boundSocket(t, '127.0.0.2'),
      ]);
      assert.ok(await exchange(first, association.relay, frame, randomBytes(100)), 'the first sender is served');
      assert.equal(
        await exchange(samePortElsewhere, association.relay, frame, randomBytes(100), { attempts: 2 }),
        null,
        'another port of 127.0.0.1 gets nothing',
      );
      assert.equal(
        await exchange(otherAddress, association.relay, frame, randomBytes(100), { attempts: 2 }),
        null,
        '127.0.0.2 gets nothing',
      );

      const target = Buffer.from([0, 0, 0, 1, 127, 0, 0, 1, echo.port >> 8, echo.port & 0xff]);
      const domain = (length, present) =>
        Buffer.concat([Buffer.from([0, 0, 0, 3, length]), Buffer.alloc(present, 0x61), Buffer.from([0, 80])]);
      const hostile = [
        Buffer.alloc(0),
        Buffer.from([0, 0]),
        Buffer.from([0, 0, 0]),
        Buffer.concat([target.subarray(0, 2), Buffer.from([1]), target.subarray(3), Buffer.from('a fragment')]),
        Buffer.from([0, 0, 0, 9, 127, 0, 0, 1, 0, 80, 1, 2, 3]),
        Buffer.from([0, 0, 0, 0, 127, 0, 0, 1, 0, 80]),
        target.subarray(0, 7),
        Buffer.from([0, 0, 0, 4, 0, 0, 0]),
        domain(200, 20),
        domain(254, 254),
        domain(255, 255),
        Buffer.from([0, 0, 0, 3, 0, 0, 80]),
        Buffer.from([0, 0, 0, 3, 3, 0xff, 0xfe, 0xfd, 0, 80]),
        // Read as UTF-8, 100 bad bytes become 300 bytes of U+FFFD.
        Buffer.concat([Buffer.from([0, 0, 0, 3, 100]), Buffer.alloc(100, 0xff), Buffer.from([0, 80])]),
        Buffer.from([0, 0, 0, 1, 127, 0, 0, 1, 0, 0, 1]),
      ];
      for (const datagram of hostile) first.send(datagram, association.relay.port, association.relay.host);
      for (let i = 0; i < 200; i++)
        first.send(randomBytes(randomInt(0, 1500)), association.relay.port, association.relay.host);
      assert.ok(
        await exchange(first, association.relay, frame, randomBytes(1200)),
        'the association is served after the hostile datagrams',
      );
      assert.equal(echo.receivedFor(Buffer.from('a fr')).length, 0, 'the fragment never reached the target');

      relayClient.kill('SIGTERM');
      assert.deepEqual(await relayClient.exited, { code: 0, signal: null });
      assert.doesNotMatch(relayClient.output, /^\s+at /m, 'no stack trace');
      const summary =
        /udp associate: (\d+) associations, (\d+) datagrams, (\d+) relayed, (\d+) replies, (\d+) dropped, (\d+) from elsewhere/.exec(
          relayClient.output,
        );
      assert.ok(summary, relayClient.output.slice(-2000));
      t.diagnostic(summary[0]);
      const [, associations, , , , dropped, strangers] = summary.map(Number);
      assert.equal(associations, 1);
      assert.ok(dropped >= hostile.length, `${dropped} dropped, at least the ${hostile.length} hostile ones`);
      assert.ok(strangers >= 2, `${strangers} from elsewhere`);
      for (const why of [
        'fragment 1',
        'unknown address type 9',
        'ends inside its address',
        '254 bytes that no resolver takes',
        'empty domain',
        'port 0',
        "not the association's client",
      ]) {
        assert.ok(relayClient.output.includes(why), `logged at debug: ${why}`);
      }
    },
  );

  test('--udp-max-associations refuses one more (reply 1) until one closes', { timeout: 120_000 }, async () => {
    const relayClient = await client([...UDP, '--udp-max-associations', '2']);
    const held = [
      await socks5UdpAssociate({ port: relayClient.port }),
      await socks5UdpAssociate({ port: relayClient.port }),
    ];
    await assert.rejects(socks5UdpAssociate({ port: relayClient.port }), (error) => error.reply === 1);
    held.pop().close();
    await waitFor('one association closed', () => openCount(relayClient.output) === 1);
    const again = await socks5UdpAssociate({ port: relayClient.port });
    again.close();
    held[0].close();
  });

  test('--udp-timeout ends an idle association and its control connection', { timeout: 120_000 }, async (t) => {
    const relayClient = await client([...UDP, '--udp-timeout', '1']);
    const association = await socks5UdpAssociate({ port: relayClient.port });
    t.after(association.close);
    const socket = await boundSocket(t);
    assert.ok(await exchange(socket, association.relay, frame, randomBytes(100)));
    await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the control connection still open 20 s after the timeout')),
        20_000,
      );
      association.control.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    await waitFor('the association closed', () => openCount(relayClient.output) === 0);
  });
});
