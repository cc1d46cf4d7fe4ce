import dgram from 'node:dgram';
import net from 'node:net';
import { measurementError } from '../errors.js';
import { CONTROL, DRAIN_LIMIT_MS, encodeHello, sendMessage, SETUP_TIMEOUT_MS } from './protocol.js';
import { controlInbox } from './sender.js';
import { openTestSession } from './test-session.js';
import { UDP_HEADER_LENGTH, writeUdpHeader } from './udp-datagrams.js';

// The built-in engine's client in UDP mode, in place of iperf3 -u -c: a
// control connection to host:port as for TCP, then datagrams of `length`
// bytes to the same port, paced at `rate` bits per second for `duration`
// seconds (docs/traffic-engine.md). Resolves with the part of iperf3 -u
// -J's report that parseIperf3Json reads: the datagrams and bytes sent,
// and those the sink counted, its jitter and out-of-order count.
// A datagram is sent when it is due, from the start; a sender that falls
// behind sends what is due at once, so a slow moment is caught up rather
// than lost, as iperf3 does.
/** @param {{ host?: string, port: number, duration: number, rate: number, length: number, signal?: AbortSignal }} [options] */
export async function runUdpSender({ host = '127.0.0.1', port, duration, rate, length, signal } = {}) {
  if (!(duration > 0) || !(rate > 0) || !(Number.isInteger(length) && length >= UDP_HEADER_LENGTH)) {
    throw new RangeError(
      `runUdpSender: duration ${duration} s, rate ${rate} bits/s and length ${length} bytes (at least ${UDP_HEADER_LENGTH}) must be positive`,
    );
  }
  const session = openTestSession({ host, port, signal });
  const { target, cookie, stop } = session;
  let finished = false;
  const control = net.connect({ host, port, noDelay: true });
  const socket = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
  control.on('error', (error) => stop.abort(measurementError(`traffic: ${target}: ${error.message}`)));
  control.on('close', () => {
    if (!finished)
      stop.abort(
        measurementError(
          `traffic: ${target} closed the control connection before the test ended (is \`cipherbench sink\` listening behind it?)`,
        ),
      );
  });
  // A datagram refused on the way (ICMP port unreachable) is a lost one,
  // as for iperf3; any other socket error ends the test.
  socket.on('error', (error) => {
    if (error.code !== 'ECONNREFUSED') stop.abort(measurementError(`traffic: udp to ${target}: ${error.message}`));
  });
  try {
    control.write(encodeHello({ kind: CONTROL, cookie }));
    const nextMessage = controlInbox(control, stop);
    sendMessage(control, { type: 'params', streams: 1, duration, reverse: false, udp: { length } });
    const accepted = await nextMessage('accepted', SETUP_TIMEOUT_MS, 'the sink did not accept the test');
    const test = accepted.udp?.test;
    if (!(Number.isInteger(test) && test >= 0 && test <= 0xffffffff))
      throw measurementError(
        'traffic: the sink accepted a UDP test without numbering it: is it a cipherbench sink of this version?',
      );
    await new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.connect(port, host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    const sent = await sendPaced(socket, { test, duration, rate, length, signal: stop.signal });
    sendMessage(control, { type: 'sent', packets: sent.packets });
    const received = await nextMessage(
      'received',
      DRAIN_LIMIT_MS + SETUP_TIMEOUT_MS,
      'the sink did not report what it received',
    );
    if (
      !isCount(received.packets) ||
      !isCount(received.out_of_order) ||
      !(typeof received.jitter_ms === 'number' && received.jitter_ms >= 0)
    ) {
      throw measurementError('traffic: the sink reported its datagrams in a form this sender does not know');
    }
    finished = true;
    return report({ session, duration, rate, length, sent, received });
  } finally {
    finished = true;
    session.release();
    control.destroy();
    socket.close();
  }
}

const isCount = (value) => Number.isSafeInteger(value) && value >= 0;

// Sends datagram after datagram as each falls due, sleeping when ahead.
// Node sends a datagram later when the socket's buffer is full, so each
// gets a buffer of its own, and the sender waits while more than
// MAX_QUEUED are waiting, as iperf3 blocks in send(): what it could not
// send does not count as sent. A burst of catching up yields to the event
// loop every BURST datagrams.
const MAX_QUEUED = 64;
const BURST = 256;

function sendPaced(socket, { test, duration, rate, length, signal }) {
  const nanosPerDatagram = (length * 8 * 1e9) / rate;
  const started = process.hrtime.bigint();
  const end = started + BigInt(Math.round(duration * 1e9));
  let packets = 0;
  return new Promise((resolve, reject) => {
    let timer = null;
    let immediate = null;
    const onAbort = () => {
      clearTimeout(timer);
      clearImmediate(immediate);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const tick = () => {
      let now = process.hrtime.bigint();
      let burst = 0;
      while (
        now < end &&
        packets * nanosPerDatagram <= Number(now - started) &&
        burst < BURST &&
        socket.getSendQueueCount() < MAX_QUEUED
      ) {
        const datagram = Buffer.alloc(length);
        writeUdpHeader(datagram, { test, sequence: packets, sentAt: now });
        socket.send(datagram);
        packets += 1;
        burst += 1;
        now = process.hrtime.bigint();
      }
      if (now >= end) {
        signal.removeEventListener('abort', onAbort);
        resolve({ packets, seconds: Number(now - started) / 1e9 });
        return;
      }
      const dueInMs = (packets * nanosPerDatagram - Number(now - started)) / 1e6;
      if (dueInMs > 1) timer = setTimeout(tick, Math.floor(dueInMs));
      else immediate = setImmediate(tick);
    };
    tick();
  });
}

// iperf3 -u -J's names and meanings: sum_sent counts what was sent;
// sum_received's bytes what arrived, and, as iperf3's receiver does, its
// packets those expected and lost_packets those that did not arrive.
function report({ session, duration, rate, length, sent, received }) {
  const figure = (packets, seconds) => ({
    start: 0,
    end: seconds,
    seconds,
    bytes: packets * length,
    bits_per_second: seconds > 0 ? (packets * length * 8) / seconds : 0,
  });
  const lost = Math.max(0, sent.packets - received.packets);
  return {
    start: session.reportStart({
      protocol: 'UDP',
      num_streams: 1,
      blksize: length,
      omit: 0,
      duration,
      bytes: 0,
      blocks: 0,
      reverse: 0,
      target_bitrate: rate,
    }),
    end: {
      streams: [{ udp: { packets: sent.packets, out_of_order: received.out_of_order, jitter_ms: received.jitter_ms } }],
      sum_sent: { ...figure(sent.packets, sent.seconds), packets: sent.packets, sender: true },
      sum_received: {
        ...figure(received.packets, sent.seconds),
        packets: sent.packets,
        lost_packets: lost,
        lost_percent: sent.packets > 0 ? (100 * lost) / sent.packets : 0,
        jitter_ms: received.jitter_ms,
        sender: false,
      },
    },
    engine: 'node',
  };
}
