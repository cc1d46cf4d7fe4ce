import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import { parseIperf3Json } from '../lib/traffic/iperf3.js';
import { encodeHello, HELLO_LENGTH, newCookie } from '../lib/traffic/protocol.js';
import { runTrafficSender } from '../lib/traffic/sender.js';
import { startTrafficSink } from '../lib/traffic/sink.js';
import { freePort } from './support/ports.js';
import { CLI, startProcess, startRelayClient, startRelayServer, stopAll } from './support/processes.js';

// Sinks, proxies, relays and the CLI sink all listen on a port the OS picks
// (port 0) and the test reads it back, so test files run side by side.
const AES_GCM = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
const DATA_KIND = 0x44;

after(stopAll);

const cli = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 });

// A TCP proxy in front of the sink that counts, for every connection, the
// bytes each way: what was really moved, seen by neither end of the engine.
async function startCountingProxy(targetPort) {
  const connections = [];
  const sockets = new Set();
  const server = net.createServer((inbound) => {
    const record = { first: null, up: 0, down: 0 };
    connections.push(record);
    const outbound = net.connect({ host: '127.0.0.1', port: targetPort });
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.on('data', (data) => {
      record.first ??= Buffer.from(data);
      record.up += data.length;
    });
    outbound.on('data', (data) => {
      record.down += data.length;
    });
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    // Data connections, told apart from the control connection by their hello.
    dataConnections: () => connections.filter((record) => record.first?.[8] === DATA_KIND),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(resolve);
      }),
  };
}

async function startRecordingSink(options = {}) {
  const ends = [];
  const sink = await startTrafficSink({ ...options, onTestEnd: (end) => ends.push(end) });
  return { ...sink, ends };
}

const total = (list, pick) => list.reduce((sum, item) => sum + pick(item), 0);

// The sink reports a test when its control connection closes, a moment
// after the sender has resolved.
async function firstEnd(sink) {
  for (let wait = 0; wait < 100 && sink.ends.length === 0; wait += 1)
    await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(sink.ends.length > 0, 'the sink reported the test');
  return sink.ends[0];
}

// The arithmetic every figure must satisfy, as in iperf3's report.
function assertFigure(figure, sender) {
  assert.deepEqual(Object.keys(figure), ['start', 'end', 'seconds', 'bytes', 'bits_per_second', 'sender']);
  assert.equal(figure.start, 0);
  assert.equal(figure.end, figure.seconds);
  assert.equal(figure.sender, sender);
  assert.ok(figure.bytes > 0 && figure.seconds > 0, JSON.stringify(figure));
  assert.equal(figure.bits_per_second, (figure.bytes * 8) / figure.seconds);
}

// Sent for at least the duration; both clocks run inside the sender's
// call, so neither can pass `elapsed`, that call's wall time taken around
// it. Bounds from the duration alone (the sender within 0.5 s of it, the
// receiver within 1 s of the sender) failed beside a looping benchmark
// (load 11): the stop timer ran late and the relays took 1.3 s to drain
// what they held, which a loaded machine may do and a wrong clock (ms for
// s, a start taken before the call) would still not pass.
function assertSeconds(sent, received, duration, elapsed) {
  assert.ok(sent >= duration - 0.01 && sent <= elapsed, `sender seconds ${sent} of ${elapsed}`);
  assert.ok(received > 0 && received <= elapsed, `receiver seconds ${received} of ${elapsed}`);
}

// A call's result and its wall time in seconds, for assertSeconds.
async function timed(call) {
  const start = performance.now();
  const value = await call();
  return { value, elapsed: (performance.now() - start) / 1000 };
}

function assertReport(report, { parallel, duration, reverse, elapsed }) {
  assert.deepEqual(Object.keys(report), ['start', 'end', 'engine']);
  assert.equal(report.engine, 'node');
  assert.equal(report.start.test_start.num_streams, parallel);
  assert.equal(report.start.test_start.reverse, reverse ? 1 : 0);
  const { streams, sum_sent: sent, sum_received: received } = report.end;
  assert.equal(streams.length, parallel);
  for (const figure of [sent, received, ...streams.flatMap((stream) => [stream.sender, stream.receiver])])
    assertFigure(figure, !reverse);
  // Per-stream figures add up to the sums; the sender's clock is one for all.
  assert.equal(
    sent.bytes,
    total(streams, (stream) => stream.sender.bytes),
  );
  assert.equal(
    received.bytes,
    total(streams, (stream) => stream.receiver.bytes),
  );
  assert.equal(received.seconds, Math.max(...streams.map((stream) => stream.receiver.seconds)));
  for (const stream of streams) assert.equal(stream.sender.seconds, sent.seconds);
  assertSeconds(sent.seconds, received.seconds, duration, elapsed);
  // What the runner reads from it, exactly as from iperf3 -J.
  const pick = ({ bytes, seconds, bits_per_second: bps }) => ({ bytes, seconds, bits_per_second: bps });
  assert.deepEqual(parseIperf3Json(JSON.stringify(report)), { sender: pick(sent), receiver: pick(received) });
}

describe('built-in traffic engine: a known transfer', () => {
  test('--parallel 3 for 1 s: the figures are the bytes the proxy saw and the sink counted', async () => {
    const sink = await startRecordingSink();
    const proxy = await startCountingProxy(sink.address.port);
    try {
      const { value: report, elapsed: reportSeconds } = await timed(() =>
        runTrafficSender({ port: proxy.port, duration: 1, parallel: 3 }),
      );
      assertReport(report, { parallel: 3, duration: 1, reverse: false, elapsed: reportSeconds });
      const { sum_sent: sent, sum_received: received } = report.end;
      const data = proxy.dataConnections();
      assert.equal(data.length, 3);
      // Every byte on a data connection after its hello is payload.
      assert.equal(
        received.bytes,
        total(data, (record) => record.up - HELLO_LENGTH),
      );
      assert.equal(
        received.bytes,
        total((await firstEnd(sink)).streams, (stream) => stream.bytes),
      );
      // Nothing is lost on loopback: the receiver waited for every byte sent.
      assert.equal(sent.bytes, received.bytes);
      assert.deepEqual(
        data.map((record) => record.down),
        [0, 0, 0],
      );
    } finally {
      await proxy.close();
      await sink.close();
    }
  });

  test('--reverse: the sink sends, and what arrived is what the proxy carried back', async () => {
    const sink = await startRecordingSink();
    const proxy = await startCountingProxy(sink.address.port);
    try {
      const { value: report, elapsed: reportSeconds } = await timed(() =>
        runTrafficSender({ port: proxy.port, duration: 1, parallel: 2, reverse: true }),
      );
      assertReport(report, { parallel: 2, duration: 1, reverse: true, elapsed: reportSeconds });
      const { sum_sent: sent, sum_received: received } = report.end;
      const data = proxy.dataConnections();
      assert.deepEqual(
        data.map((record) => record.up),
        [HELLO_LENGTH, HELLO_LENGTH],
        'only the hellos went forward',
      );
      assert.equal(
        received.bytes,
        total(data, (record) => record.down),
      );
      const end = await firstEnd(sink);
      assert.equal(end.reverse, true);
      assert.equal(
        sent.bytes,
        total(end.streams, (stream) => stream.bytes),
      );
      assert.equal(sent.bytes, received.bytes);
    } finally {
      await proxy.close();
      await sink.close();
    }
  });

  test('an aborted run rejects with its reason, and the sink takes the next test', async () => {
    const sink = await startRecordingSink();
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('run interrupted')), 300);
      await assert.rejects(runTrafficSender({ port: sink.address.port, duration: 5, signal: controller.signal }), {
        message: 'run interrupted',
      });
      const { value: report, elapsed: reportSeconds } = await timed(() =>
        runTrafficSender({ port: sink.address.port, duration: 0.2 }),
      );
      assertReport(report, { parallel: 1, duration: 0.2, reverse: false, elapsed: reportSeconds });
      assert.equal(
        (await firstEnd(sink)).streams[0].bytes,
        report.end.sum_received.bytes,
        'only the test that finished is reported',
      );
    } finally {
      await sink.close();
    }
  });
});

describe('built-in traffic engine: the sink treats input as hostile', () => {
  const exchange = (port, bytes) =>
    new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      let answer = '';
      const timer = setTimeout(() => reject(new Error(`the sink kept the connection open: ${answer}`)), 5000);
      socket.on('data', (data) => {
        answer += data;
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(answer);
      });
      socket.write(bytes);
    });

  test('a connection that is not ours is closed without an answer', async () => {
    const sink = await startRecordingSink();
    try {
      assert.equal(await exchange(sink.address.port, Buffer.alloc(64, 'x')), '');
    } finally {
      await sink.close();
    }
  });

  const refusals = [
    ['no streams', { type: 'params', streams: 0, duration: 1, reverse: false }, /streams must be 1 to 128/],
    ['a negative duration', { type: 'params', streams: 1, duration: -1, reverse: false }, /duration must be above 0/],
    ['figures before the test ran', { type: 'sent', bytes: [1] }, /unexpected control message "sent"/],
  ];
  for (const [what, message, answer] of refusals) {
    test(`${what}: the sink answers with an error and closes`, async () => {
      const sink = await startRecordingSink();
      try {
        const hello = encodeHello({ kind: 'control', cookie: newCookie() });
        const reply = await exchange(
          sink.address.port,
          Buffer.concat([hello, Buffer.from(`${JSON.stringify(message)}\n`)]),
        );
        assert.equal(JSON.parse(reply).type, 'error');
        assert.match(JSON.parse(reply).message, answer);
      } finally {
        await sink.close();
      }
    });
  }

  test('a data stream for a test nobody opened is closed', async () => {
    const sink = await startRecordingSink();
    try {
      assert.equal(
        await exchange(sink.address.port, encodeHello({ kind: 'data', stream: 0, cookie: newCookie() })),
        '',
      );
    } finally {
      await sink.close();
    }
  });
});

describe('built-in traffic engine through a real relay pair', () => {
  after(stopAll);

  test(
    'aes-256-gcm: forward with 2 streams and reverse both measure; no sink behind the relays is an error',
    { timeout: 60_000 },
    async () => {
      const sink = await startRecordingSink();
      try {
        const server = await startRelayServer({ key: 'traffic', presets: AES_GCM });
        const client = await startRelayClient({
          serverPort: server.port,
          forwardPort: sink.address.port,
          key: 'traffic',
          presets: AES_GCM,
        });
        const { value: forward, elapsed: forwardSeconds } = await timed(() =>
          runTrafficSender({ port: client.port, duration: 1, parallel: 2 }),
        );
        assertReport(forward, { parallel: 2, duration: 1, reverse: false, elapsed: forwardSeconds });
        assert.equal(forward.end.sum_sent.bytes, forward.end.sum_received.bytes, 'the relays carried every byte');
        const { value: reverse, elapsed: reverseSeconds } = await timed(() =>
          runTrafficSender({ port: client.port, duration: 1, reverse: true }),
        );
        assertReport(reverse, { parallel: 1, duration: 1, reverse: true, elapsed: reverseSeconds });
        assert.equal(reverse.end.sum_sent.bytes, reverse.end.sum_received.bytes, 'the relays carried every byte back');

        const toNowhere = await startRelayClient({
          serverPort: server.port,
          forwardPort: await freePort(),
          key: 'traffic',
          presets: AES_GCM,
        });
        const result = cli('send', '--connect', `127.0.0.1:${toNowhere.port}`, '--duration', '1', '--json');
        assert.equal(result.status, 1, result.stderr);
        assert.match(
          JSON.parse(result.stdout).error,
          /closed the control connection before the test ended \(is `cipherbench sink` listening behind it\?\)/,
        );
      } finally {
        await stopAll();
        await sink.close();
      }
    },
  );
});

describe('sink and send commands', () => {
  after(stopAll);

  test('send --json to `cipherbench sink`: the report the runner reads, and the bytes the sink printed', async () => {
    const sink = await startProcess(process.execPath, [CLI, 'sink', '--listen', '127.0.0.1:0'], {
      ready: /listening on /,
    });
    const [, sinkPort] = /^listening on 127\.0\.0\.1:(\d+)\n/.exec(sink.output) ?? [];
    assert.ok(sinkPort, sink.output);
    const { value: result, elapsed } = await timed(() =>
      cli('send', '--connect', `127.0.0.1:${sinkPort}`, '--duration', '1', '--parallel', '3', '--json'),
    );
    assert.equal(result.status, 0, result.stderr);
    const report = JSON.parse(result.stdout);
    assertReport(report, { parallel: 3, duration: 1, reverse: false, elapsed });
    const cookie = report.start.cookie;
    const line = new RegExp(`test ${cookie}: forward, 3 streams, received (\\d+) bytes\\n`);
    for (let wait = 0; wait < 50 && !line.test(sink.output); wait += 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(Number(line.exec(sink.output)?.[1]), report.end.sum_received.bytes, sink.output);

    const { value: text, elapsed: textSeconds } = await timed(() =>
      cli('send', '--connect', `127.0.0.1:${sinkPort}`, '--duration', '0.3', '--reverse'),
    );
    assert.equal(text.status, 0, text.stderr);
    const lines =
      /^stream Interval +Transfer +Bitrate\nsum +0\.00-(\d+\.\d\d) +sec +[\d.]+ [KMG]Bytes +[\d.]+ [KMG]bits\/sec +sender\nsum +0\.00-(\d+\.\d\d) +sec +[\d.]+ [KMG]Bytes +[\d.]+ [KMG]bits\/sec +receiver\n$/.exec(
        text.stdout,
      );
    assert.ok(lines, text.stdout);
    // The text's seconds are rounded to hundredths.
    assertSeconds(Number(lines[1]), Number(lines[2]), 0.3, textSeconds + 0.005);

    sink.kill('SIGTERM');
    assert.deepEqual(await sink.exited, { code: 0, signal: null });
  });

  test('nothing listening: { "error" } on stdout, exit 1, as iperf3 -J', async () => {
    const nothing = await freePort();
    const result = cli('send', '--connect', `127.0.0.1:${nothing}`, '--duration', '1', '--json');
    assert.equal(result.status, 1, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(report), ['error']);
    assert.match(report.error, new RegExp(`127\\.0\\.0\\.1:${nothing}: connect ECONNREFUSED`));
    assert.match(parseIperf3Json(result.stdout).error, /ECONNREFUSED/);
    const text = cli('send', '--connect', `127.0.0.1:${nothing}`, '--duration', '1');
    assert.equal(text.status, 1);
    assert.match(text.stderr, /^cipherbench: traffic: .*ECONNREFUSED.*\n$/);
  });

  const usage = [
    ['no --connect', ['send', '--duration', '1', '--json'], /--connect/],
    ['a bad endpoint', ['send', '--connect', 'nowhere', '--duration', '1', '--json'], /--connect must be HOST:PORT/],
    [
      'zero duration',
      ['send', '--connect', '27089', '--duration', '0', '--json'],
      /--duration must be a number of seconds above 0/,
    ],
    [
      'a duration that is not a number',
      ['send', '--connect', '27089', '--duration', 'long', '--json'],
      /--duration must be/,
    ],
    [
      'zero streams',
      ['send', '--connect', '27089', '--parallel', '0', '--json'],
      /--parallel must be a whole number from 1 to 128, got "0"/,
    ],
    [
      'too many streams',
      ['send', '--connect', '27089', '--parallel', '129', '--json'],
      /--parallel must be a whole number from 1 to 128/,
    ],
    ['sink without --listen', ['sink'], /--listen/],
  ];
  for (const [what, args, stderr] of usage) {
    test(`${what}: exit 2, one line, no JSON`, () => {
      const result = cli(...args);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, stderr);
      assert.equal(result.stdout, '');
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    });
  }
});
