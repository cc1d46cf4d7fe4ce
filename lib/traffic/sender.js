import net from 'node:net';
import { measurementError } from '../errors.js';
import {
  CONTROL,
  DATA,
  DRAIN_IDLE_MS,
  DRAIN_LIMIT_MS,
  encodeHello,
  messageReader,
  READ_SIZE,
  sendMessage,
  SETUP_TIMEOUT_MS,
  WRITE_SIZE,
} from './protocol.js';
import { createReceiver, sendFor } from './streams.js';
import { openTestSession } from './test-session.js';

// Every stream's reads land here and are only counted, so one buffer does
// for all of them: onread hands it over synchronously, one read at a time.
const READ_BUFFER = Buffer.allocUnsafe(READ_SIZE);

// The built-in engine's client, in place of iperf3 -c: opens a control
// connection and `parallel` data streams to host:port (the relay client,
// with `cipherbench sink` behind the relays), sends for `duration` seconds
// (or, with reverse, has the sink send), and resolves with a report shaped
// like iperf3 -J's (docs/traffic-engine.md):
//   end.sum_sent     - bytes written during the test, over its measured duration
//   end.sum_received - bytes that arrived at the far end, over the time from
//                      the start until the last of them arrived
//   end.streams[i]   - { sender, receiver } for each stream
// With `rate` (bits per second, all streams together) the sending is paced
// to it, as iperf3 -b; only in the forward direction, where this side sends.
// Rejects with a one-line measurement error when the test cannot be made.
/** @param {{ host?: string, port: number, duration: number, parallel?: number, reverse?: boolean, rate?: number | null, signal?: AbortSignal }} [options] */
export async function runTrafficSender({
  host = '127.0.0.1',
  port,
  duration,
  parallel = 1,
  reverse = false,
  rate = null,
  signal,
} = {}) {
  if (!(duration > 0))
    throw new RangeError(`runTrafficSender: duration must be a positive number of seconds, got ${duration}`);
  if (!Number.isSafeInteger(parallel) || parallel < 1)
    throw new RangeError(`runTrafficSender: parallel must be a positive integer, got ${parallel}`);
  if (rate !== null && (reverse || !(rate > 0)))
    throw new RangeError(
      `runTrafficSender: rate paces forward sending only, at a positive number of bits per second, got ${rate}${reverse ? ' with reverse' : ''}`,
    );
  const session = openTestSession({ host, port, signal });
  const { target, cookie, stop } = session;
  const sockets = [];
  let finished = false;
  // Any socket failing, or closing before the test has ended, ends the test.
  const watch = (socket, what) => {
    sockets.push(socket);
    const cutShort = () =>
      measurementError(
        `traffic: ${target} closed the ${what} before the test ended (is \`cipherbench sink\` listening behind it?)`,
      );
    // A relay resets the connection when its target cannot be reached (an
    // error stays visible as a reset): before the test ended, that says the
    // same as a close.
    socket.on('error', (error) =>
      stop.abort(
        error.code === 'ECONNRESET' && !finished
          ? cutShort()
          : measurementError(`traffic: ${target}: ${error.message}`),
      ),
    );
    socket.on('close', () => {
      if (!finished) stop.abort(cutShort());
    });
    return socket;
  };
  try {
    const control = watch(net.connect({ host, port, noDelay: true }), 'control connection');
    control.write(encodeHello({ kind: CONTROL, cookie }));
    const nextMessage = controlInbox(control, stop);
    sendMessage(control, { type: 'params', streams: parallel, duration, reverse });
    await nextMessage('accepted', SETUP_TIMEOUT_MS, 'the sink did not accept the test');

    const receiver = createReceiver(parallel);
    const streams = Array.from({ length: parallel }, (_, index) => {
      const socket = net.connect({
        host,
        port,
        onread: { buffer: READ_BUFFER, callback: (length) => receiver.add(index, length) },
      });
      socket.write(encodeHello({ kind: DATA, stream: index, cookie }));
      return watch(socket, `data stream ${index}`);
    });
    await nextMessage('running', SETUP_TIMEOUT_MS, `the sink did not see all ${parallel} data streams`);

    let sent;
    let received;
    if (reverse) {
      receiver.start();
      const message = await nextMessage(
        'sent',
        duration * 1000 + SETUP_TIMEOUT_MS,
        `the sink did not finish sending after ${duration} s`,
      );
      if (!isByteList(message.bytes, parallel) || !isSeconds(message.seconds))
        throw measurementError('traffic: the sink reported its sending in a form this sender does not know');
      sent = { bytes: message.bytes, seconds: message.seconds };
      await receiver.drained(sent.bytes, { idleMs: DRAIN_IDLE_MS, limitMs: DRAIN_LIMIT_MS, signal: stop.signal });
      received = receiver.figures();
    } else {
      sent = await sendFor(streams, duration, stop.signal, { rate });
      sendMessage(control, { type: 'sent', bytes: sent.bytes });
      const message = await nextMessage(
        'received',
        DRAIN_LIMIT_MS + SETUP_TIMEOUT_MS,
        'the sink did not report what it received',
      );
      if (!isReceivedList(message.streams, parallel))
        throw measurementError('traffic: the sink reported what it received in a form this sender does not know');
      received = message.streams;
    }
    finished = true;
    return report({ session, parallel, duration, reverse, sent, received });
  } finally {
    finished = true;
    session.release();
    for (const socket of sockets) socket.destroy();
  }
}

// nextMessage(type, timeoutMs, what) resolves with the next control message
// if it is of that type; rejects on an error message from the sink, another
// type, the timeout (saying `what`), or when `stop` aborts.
export function controlInbox(control, stop) {
  const inbox = [];
  let deliver = () => {};
  const read = messageReader((message) => {
    inbox.push(message);
    deliver();
  });
  control.on('data', (data) => {
    try {
      read(data);
    } catch (error) {
      stop.abort(error);
    }
  });
  return (type, timeoutMs, what) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => stop.abort(measurementError(`traffic: ${what} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const settle = (settleWith, value) => {
        clearTimeout(timer);
        stop.signal.removeEventListener('abort', onAbort);
        deliver = () => {};
        settleWith(value);
      };
      const onAbort = () => settle(reject, stop.signal.reason);
      deliver = () => {
        const message = inbox.shift();
        if (message.type === type) settle(resolve, message);
        else if (message.type === 'error')
          settle(reject, measurementError(`traffic: the sink ended the test: ${message.message}`));
        else
          settle(
            reject,
            measurementError(`traffic: expected ${type} from the sink, got ${JSON.stringify(message.type)}`),
          );
      };
      if (stop.signal.aborted) onAbort();
      else {
        stop.signal.addEventListener('abort', onAbort, { once: true });
        if (inbox.length > 0) deliver();
      }
    });
}

// The part of iperf3 -J's report that readers use, with the same names and
// meanings; `sender` in each figure is true when this side sent, as iperf3
// marks it (false with --reverse).
function report({ session, parallel, duration, reverse, sent, received }) {
  const sending = !reverse;
  const figure = (bytes, seconds) => ({
    start: 0,
    end: seconds,
    seconds,
    bytes,
    bits_per_second: seconds > 0 ? (bytes * 8) / seconds : 0,
    sender: sending,
  });
  const sum = (values) => values.reduce((total, value) => total + value, 0);
  return {
    start: session.reportStart({
      protocol: 'TCP',
      num_streams: parallel,
      blksize: WRITE_SIZE,
      omit: 0,
      duration,
      bytes: 0,
      blocks: 0,
      reverse: reverse ? 1 : 0,
    }),
    end: {
      streams: received.map((stream, index) => ({
        sender: figure(sent.bytes[index], sent.seconds),
        receiver: figure(stream.bytes, stream.seconds),
      })),
      sum_sent: figure(sum(sent.bytes), sent.seconds),
      sum_received: figure(
        sum(received.map((stream) => stream.bytes)),
        Math.max(...received.map((stream) => stream.seconds)),
      ),
    },
    engine: 'node',
  };
}

const isSeconds = (value) => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const isByteList = (list, length) =>
  Array.isArray(list) && list.length === length && list.every((bytes) => Number.isSafeInteger(bytes) && bytes >= 0);
const isReceivedList = (list, length) =>
  isByteList(
    list?.map?.((stream) => stream?.bytes),
    length,
  ) && list.every((stream) => isSeconds(stream.seconds));
