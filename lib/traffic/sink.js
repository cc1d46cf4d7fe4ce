import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import net from 'node:net';
import { bindServer } from '../relay/listener.js';
import {
  CONTROL,
  DATA,
  DRAIN_IDLE_MS,
  DRAIN_LIMIT_MS,
  MAX_DURATION_SECONDS,
  MAX_STREAMS,
  messageReader,
  readHello,
  sendMessage,
  SETUP_TIMEOUT_MS,
} from './protocol.js';
import { createReceiver, sendFor } from './streams.js';
import { createUdpTally, readUdpHeader, UDP_HEADER_LENGTH, UDP_RECEIVE_BUFFER } from './udp-datagrams.js';

// The far end of the built-in engine, in place of iperf3 -s: it counts what
// the sender's streams deliver (or, with reverse, sends for the duration)
// and reports per stream on the test's control connection
// (docs/traffic-engine.md). Tests are independent: each is its own cookie,
// and one that goes wrong is closed without touching the others.

// A connection that has not said what it is by then is not a sender.
const HELLO_TIMEOUT_MS = 10_000;
const MAX_TESTS = 16;
// Datagrams lost on the way never come: once the sender has said how many
// it sent, a second without one more ends the wait.
const UDP_DRAIN_IDLE_MS = 1000;
const MAX_DATAGRAM = 65_507;

// onTestEnd({ cookie, reverse, streams: [{ bytes }] }) is called once per
// test that ran, with the bytes each stream received (or, reverse, sent).
export async function startTrafficSink({ host = '127.0.0.1', port = 0, onTestEnd = () => {} } = {}) {
  keepFreedHeapMapped();
  const sink = new TrafficSink(onTestEnd);
  const server = net.createServer((socket) => sink.accept(socket));
  const { address, udp } = await bindTcpAndUdp(server, { host, port }, (datagram) => sink.onDatagram(datagram));
  return {
    address,
    close: () =>
      new Promise((resolve) => {
        sink.closeAll();
        udp.close();
        server.close(() => resolve());
      }),
  };
}

// The sink's tests: TCP tests by their cookie, UDP tests by the number
// their datagrams carry (a random one, so a stray datagram does not count
// towards a test), and every connection, to close them all at the end.
class TrafficSink {
  constructor(onTestEnd) {
    this.onTestEnd = onTestEnd;
    this.tests = new Map();
    this.udpTests = new Map();
    this.sockets = new Set();
  }

  accept(socket) {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    const timer = setTimeout(() => socket.destroy(), HELLO_TIMEOUT_MS);
    readHello(socket, (hello, rest) => {
      clearTimeout(timer);
      if (hello?.kind === CONTROL) this.openTest(socket, hello.cookie, rest);
      else if (hello?.kind === DATA) this.joinTest(socket, hello, rest);
      else socket.destroy();
    });
  }

  newUdpTestNumber() {
    const number = randomBytes(4).readUInt32BE(0);
    return this.udpTests.has(number) ? this.newUdpTestNumber() : number;
  }

  openTest(socket, cookie, rest) {
    const { tests } = this;
    socket.setNoDelay(true);
    if (tests.has(cookie) || tests.size >= MAX_TESTS) {
      sendMessage(socket, {
        type: 'error',
        message: tests.has(cookie)
          ? 'a test with this cookie is running'
          : `the sink is running ${MAX_TESTS} tests already`,
      });
      socket.end();
      return;
    }
    const test = { cookie, control: socket, params: null, streams: [], receiver: null, stop: new AbortController() };
    tests.set(cookie, test);
    test.setupTimer = setTimeout(
      () => this.failTest(test, `not every data stream arrived within ${SETUP_TIMEOUT_MS} ms`),
      SETUP_TIMEOUT_MS,
    );
    socket.once('close', () => this.closeTest(test));
    const read = messageReader((message) => this.onMessage(test, message));
    const onData = (data) => {
      try {
        read(data);
      } catch (error) {
        // A malformed message ends this test; anything else is a bug.
        if (error.exitCode === undefined) throw error;
        this.failTest(test, error.message);
      }
    };
    socket.on('data', onData);
    onData(rest);
  }

  onMessage(test, message) {
    // Lines read in the same chunk after a failure find the test closed.
    if (this.tests.get(test.cookie) !== test) return;
    if (message.type === 'params' && !test.params && message.udp !== undefined) {
      const problem = paramsProblem(message) ?? udpParamsProblem(message);
      if (problem) return this.failTest(test, problem);
      return this.openUdpTest(test, message);
    }
    if (message.type === 'sent' && test.params?.udp && !test.sent) {
      if (!Number.isSafeInteger(message.packets) || message.packets < 0)
        return this.failTest(test, 'sent: packets must be a count of datagrams');
      test.sent = message.packets;
      const expected = [test.sent * test.params.udp.length];
      return this.reportWhenDrained(test, expected, UDP_DRAIN_IDLE_MS, () => test.tally.figures());
    }
    if (message.type === 'params' && !test.params) {
      const problem = paramsProblem(message);
      if (problem) return this.failTest(test, problem);
      test.params = { streams: message.streams, duration: message.duration, reverse: message.reverse };
      test.streams = new Array(message.streams).fill(null);
      test.receiver = createReceiver(message.streams);
      return sendMessage(test.control, { type: 'accepted' });
    }
    if (message.type === 'sent' && test.params && !test.params.reverse && test.running && !test.sent) {
      if (!isByteList(message.bytes, test.params.streams))
        return this.failTest(test, 'sent: bytes must list one count per stream');
      test.sent = message.bytes;
      return this.reportWhenDrained(test, test.sent, DRAIN_IDLE_MS, () => ({ streams: test.receiver.figures() }));
    }
    return this.failTest(test, `unexpected control message ${JSON.stringify(message.type)}`);
  }

  // A UDP test has no data connections: its datagrams come to the UDP
  // socket on the same port, and count from when it is accepted.
  openUdpTest(test, message) {
    clearTimeout(test.setupTimer);
    test.params = { streams: 1, duration: message.duration, reverse: false, udp: { length: message.udp.length } };
    test.udpTest = this.newUdpTestNumber();
    test.receiver = createReceiver(1);
    test.receiver.start();
    test.tally = createUdpTally();
    test.running = true;
    this.udpTests.set(test.udpTest, test);
    sendMessage(test.control, { type: 'accepted', udp: { test: test.udpTest } });
  }

  onDatagram(datagram) {
    const arrivedAt = process.hrtime.bigint();
    const header = readUdpHeader(datagram);
    const test = header && this.udpTests.get(header.test);
    if (!test) return;
    test.tally.add(header, arrivedAt);
    test.receiver.add(0, datagram.length);
  }

  joinTest(socket, { cookie, stream: index }, rest) {
    const test = this.tests.get(cookie);
    if (!test?.params || index >= test.params.streams || test.streams[index]) {
      socket.destroy();
      return;
    }
    test.streams[index] = socket;
    socket.once('close', () => {
      // A stream that ends before the test has reported ends the test.
      if (this.tests.get(cookie) === test && !test.reported)
        this.failTest(test, `data stream ${index} closed during the test`);
    });
    if (!test.params.reverse) {
      socket.on('data', (data) => test.receiver.add(index, data.length));
      if (rest.length > 0) test.receiver.add(index, rest.length);
    }
    if (test.streams.every(Boolean)) this.startTest(test);
  }

  // Every stream is there: the receiver's clock starts now, as iperf3's
  // does at TEST_RUNNING, before the first byte is written.
  startTest(test) {
    clearTimeout(test.setupTimer);
    test.running = true;
    sendMessage(test.control, { type: 'running' });
    if (!test.params.reverse) {
      test.receiver.start();
      return;
    }
    sendFor(test.streams, test.params.duration, test.stop.signal).then(
      ({ bytes, seconds }) => {
        test.sentBytes = bytes;
        test.reported = true;
        sendMessage(test.control, { type: 'sent', bytes, seconds });
      },
      // Rejected only when the test was closed, which has said why already.
      () => {},
    );
  }

  // Once all the client says it sent has come, or no more comes for
  // idleMs, the client is told what arrived: figures() gives it.
  async reportWhenDrained(test, expected, idleMs, figures) {
    try {
      await test.receiver.drained(expected, { idleMs, limitMs: DRAIN_LIMIT_MS, signal: test.stop.signal });
    } catch {
      return; // the test was closed while draining
    }
    test.reported = true;
    sendMessage(test.control, { type: 'received', ...figures() });
  }

  failTest(test, message) {
    if (!test.control.destroyed) {
      sendMessage(test.control, { type: 'error', message });
      test.control.end();
    }
    this.closeTest(test);
  }

  closeTest(test) {
    if (this.tests.get(test.cookie) !== test) return;
    this.tests.delete(test.cookie);
    this.udpTests.delete(test.udpTest);
    clearTimeout(test.setupTimer);
    test.stop.abort();
    for (const socket of test.streams) socket?.destroy();
    if (!test.reported) return;
    const streams = test.params.reverse
      ? test.sentBytes.map((bytes) => ({ bytes }))
      : test.receiver.figures().map(({ bytes }) => ({ bytes }));
    this.onTestEnd({ cookie: test.cookie, reverse: test.params.reverse, streams });
  }

  closeAll() {
    for (const test of [...this.tests.values()]) this.closeTest(test);
    for (const socket of this.sockets) socket.destroy();
  }
}

// The TCP listener and, on the same port number, the socket UDP tests'
// datagrams come to, as iperf3 -s has them. For port 0 the kernel picks
// the TCP port, and any UDP socket on the machine (a relay's association,
// a client) may hold the same number: then another pick, a few times.
const PORT_PICKS = 20;

async function bindTcpAndUdp(server, { host, port }, onDatagram) {
  for (let pick = 1; ; pick++) {
    const address = await bindServer(server, { host, port });
    const udp = dgram.createSocket(net.isIPv6(address.host) ? 'udp6' : 'udp4');
    try {
      await new Promise((resolve, reject) => {
        udp.once('error', reject);
        udp.bind(address.port, address.host, () => {
          udp.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      udp.close();
      await new Promise((resolve) => server.close(resolve));
      if (port !== 0 || error.code !== 'EADDRINUSE' || pick === PORT_PICKS) throw error;
      continue;
    }
    udp.on('message', onDatagram);
    udp.on('error', () => {});
    udp.setRecvBufferSize(UDP_RECEIVE_BUFFER);
    return { address, udp };
  }
}

// Node gives every read on an accepted socket a fresh 64 KiB buffer (a
// server's sockets have no onread), and glibc hands freed heap back to the
// OS whenever more than 128 KiB lies free at its top, so the next reads
// fault the pages in again: 220,000 to 450,000 page faults in a 3 s test
// here. Freeing one block that glibc served with mmap raises its trim
// threshold to twice that block's size (mallopt(3), dynamic mmap
// threshold), and the sink then keeps its read buffers' pages: 15,000
// faults, and 1.4 to 1.8 times the forward rate on this machine
// (docs/traffic-engine.md). The 16 MiB are never touched and soon
// collected; with another allocator this costs nothing and does nothing.
function keepFreedHeapMapped() {
  Buffer.allocUnsafeSlow(16 * 1024 * 1024);
}

function paramsProblem({ streams, duration, reverse }) {
  if (!Number.isInteger(streams) || streams < 1 || streams > MAX_STREAMS)
    return `params: streams must be 1 to ${MAX_STREAMS}`;
  if (typeof duration !== 'number' || !(duration > 0 && duration <= MAX_DURATION_SECONDS))
    return `params: duration must be above 0 and at most ${MAX_DURATION_SECONDS} s`;
  if (typeof reverse !== 'boolean') return 'params: reverse must be true or false';
  return null;
}

function udpParamsProblem({ streams, reverse, udp }) {
  if (streams !== 1 || reverse !== false) return 'params: a UDP test is one stream, forward';
  if (!Number.isInteger(udp?.length) || udp.length < UDP_HEADER_LENGTH || udp.length > MAX_DATAGRAM)
    return `params: udp.length must be ${UDP_HEADER_LENGTH} to ${MAX_DATAGRAM} bytes`;
  return null;
}

const isByteList = (list, length) =>
  Array.isArray(list) && list.length === length && list.every((bytes) => Number.isSafeInteger(bytes) && bytes >= 0);
