import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import dgram from 'node:dgram';

// UDP counterparts of echo-server.js and transfer.js for the UDP relay
// tests. Every datagram starts with its transfer's 4-byte tag and a 4-byte
// index; the echo target keeps the first copy of each (tag, index) it
// receives, so a test checks the bytes at the far end as well as on return.
export async function startUdpEchoServer({ host = '127.0.0.1' } = {}) {
  const socket = dgram.createSocket('udp4');
  const received = new Map();
  socket.on('message', (datagram, from) => {
    if (datagram.length >= 8) {
      const id = datagram.subarray(0, 8).toString('hex');
      if (!received.has(id)) received.set(id, Buffer.from(datagram));
    }
    socket.send(datagram, from.port, from.address);
  });
  await new Promise((resolve) => socket.bind(0, host, resolve));
  return {
    port: socket.address().port,
    // The datagrams of one transfer that reached the target, by index.
    receivedFor: (tag) =>
      [...received].filter(([id]) => id.startsWith(tag.toString('hex'))).map(([, datagram]) => datagram),
    close: () => new Promise((resolve) => socket.close(resolve)),
  };
}

// Sends `count` datagrams of `size` random bytes through `port`, at most
// `window` in flight, each one again after `retryMs` without its echo, up
// to `attempts` times. Loopback UDP under load drops datagrams, so a loss is
// retried and counted, never a failure by itself; a datagram that comes
// back different fails at once, and so does one lost `attempts` times.
// Resolves with { tag, sent (the datagrams), retries, duplicates }.
// `sender` (from udpSender()) sends from a socket that outlives the
// transfer, so a second transfer rides the same association. `frame`
// ({ encode(datagram), decode(datagram) -> datagram or null }) wraps each
// datagram on the way out and unwraps it on return (SOCKS5 UDP's header,
// socks5-udp.js); null from decode fails the transfer as a changed one.
export function udpEchoTransfer({
  port,
  host = '127.0.0.1',
  count = 2000,
  size = 1200,
  window = 8,
  retryMs = 500,
  attempts = 8,
  timeoutMs = 120_000,
  sender = null,
  frame = null,
}) {
  const tag = randomBytes(4);
  const sent = Array.from({ length: count }, (_, index) => {
    const datagram = randomBytes(size);
    tag.copy(datagram, 0);
    datagram.writeUInt32BE(index, 4);
    return datagram;
  });
  const socket = sender ?? dgram.createSocket('udp4');
  const done = new Array(count).fill(false);
  const timers = new Map();
  let next = 0;
  let finished = 0;
  let retries = 0;
  let duplicates = 0;
  return new Promise((resolve, reject) => {
    const overall = setTimeout(
      () => stop(new Error(`UDP transfer through :${port} timed out with ${finished} of ${count} datagrams back`)),
      timeoutMs,
    );
    const stop = (error) => {
      clearTimeout(overall);
      for (const timer of timers.values()) clearTimeout(timer);
      socket.off('message', onMessage);
      socket.off('error', stop);
      if (!sender) socket.close();
      if (error) reject(error);
      else resolve({ tag, sent, retries, duplicates });
    };
    const send = (index, attempt) => {
      socket.send(frame ? frame.encode(sent[index]) : sent[index], port, host);
      timers.set(
        index,
        setTimeout(() => {
          if (attempt >= attempts)
            return stop(
              new Error(`datagram ${index} through :${port} lost ${attempts} times (${retries} retries so far)`),
            );
          retries += 1;
          send(index, attempt + 1);
        }, retryMs),
      );
    };
    const fill = () => {
      while (next < count && timers.size < window) send(next++, 1);
      if (finished === count) stop();
    };
    const onMessage = (received) => {
      const datagram = frame ? (frame.decode(received) ?? Buffer.alloc(0)) : received;
      const index = datagram.length >= 8 ? datagram.readUInt32BE(4) : -1;
      if (!(index >= 0 && index < count) || !datagram.equals(sent[index])) {
        return stop(
          new Error(`a datagram came back changed through :${port} (${datagram.length} bytes, index ${index})`),
        );
      }
      if (done[index]) {
        duplicates += 1;
        return;
      }
      done[index] = true;
      finished += 1;
      clearTimeout(timers.get(index));
      timers.delete(index);
      fill();
    };
    socket.on('message', onMessage);
    socket.on('error', stop);
    if (sender) fill();
    else socket.bind(0, '127.0.0.1', fill);
  });
}

// A bound socket for udpEchoTransfer's `sender`; close() it when done.
export async function udpSender() {
  const socket = dgram.createSocket('udp4');
  await new Promise((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return socket;
}

const sha256 = (datagrams) =>
  datagrams.reduce((hash, datagram) => hash.update(datagram), createHash('sha256')).digest('hex');

// Carries a transfer through each entry port of `paths` ({ name: port },
// or { name: { port, host, frame } } as udpEchoTransfer takes them),
// one path at a time (a UDP storm on two cores drops more than it tests),
// and checks every datagram came back unchanged and reached the target
// unchanged, in full. Returns the transfers' results by path.
export async function assertUdpCarried(
  echo,
  paths,
  { count = 2000, size = 1200, explain = (path, error) => error } = {},
) {
  const results = {};
  for (const [path, entry] of Object.entries(paths)) {
    let result;
    try {
      result = await udpEchoTransfer({ ...(typeof entry === 'number' ? { port: entry } : entry), count, size });
    } catch (error) {
      throw explain(path, error);
    }
    const farEnd = echo.receivedFor(result.tag).sort((a, b) => a.readUInt32BE(4) - b.readUInt32BE(4));
    assert.equal(farEnd.length, count, `${path}: every datagram reached the target`);
    assert.equal(sha256(farEnd), sha256(result.sent), `${path}: the datagrams at the target equal those sent`);
    results[path] = result;
  }
  return results;
}
