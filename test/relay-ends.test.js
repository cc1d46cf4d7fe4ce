import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { prepareChain } from '../lib/chain/pipeline.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { CATALOGUE } from '../lib/presets/index.js';

// How a relayed connection ends: a cut download must reach the application
// as a reset, a complete one as an end. A relay stopped by SIGTERM or SIGINT
// resets what it carries; VMess, which marks the end of a stream with an
// empty chunk, passes a FIN without that chunk on as a reset. Real relays on
// loopback, every port 0, each part bounded in time.
const KEY = 'ends-test-password';
const SS = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
const VMESS_ID = 'a3482e88-686a-4a58-8126-99c9df64b7bf';
const VMESS = ['aes-128-gcm', 'none'].map((security) => [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security } }]);

const listening = async (server) => {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server.address().port;
};

// A target that sends without end until its connection goes.
const endlessSource = async () => {
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    const chunk = Buffer.alloc(64 * 1024, 1);
    const pump = () => {
      while (socket.writable && socket.write(chunk));
    };
    socket.on('drain', pump);
    pump();
  });
  return { server, port: await listening(server) };
};

// A target that sends `bytes` and then a FIN.
const finiteSource = async (bytes) => {
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    socket.on('error', () => {});
    socket.resume();
    socket.end(bytes);
  });
  return { server, port: await listening(server) };
};

// An application's view of a connection: sends `request` (then a FIN when
// `end`), and resolves with what came back and how it ended, 'reset' or
// 'end'. libuv reports a reset that arrives during a read as an end, so an
// end counts only if an empty write back then succeeds, as in bridge.js.
const fetchFrom = (port, { request = Buffer.from('GET'), end = false, onData = () => {}, timeoutMs = 5000 } = {}) =>
  new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const received = [];
    const timer = setTimeout(() => done(null, new Error(`:${port} still open after ${timeoutMs} ms`)), timeoutMs);
    let settled = false;
    const done = (how, error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve({ how, received: Buffer.concat(received) });
    };
    socket.on('connect', () => (end ? socket.end(request) : socket.write(request)));
    socket.on('data', (data) => {
      received.push(data);
      onData();
    });
    socket.on('error', (error) => done(error.code === 'ECONNRESET' || error.code === 'EPIPE' ? 'reset' : error.code));
    socket.on('end', () => {
      if (!socket.writable) return done('end');
      socket.write(Buffer.alloc(0), (error) => done(error ? 'reset' : 'end'));
    });
  });

// A download through the pair, cut by `action` once under way.
const downloadCutBy = async (clientPort, action) => {
  let started;
  const underWay = new Promise((resolve) => (started = resolve));
  const outcome = fetchFrom(clientPort, { onData: () => started() });
  await underWay;
  await sleep(100);
  await action();
  return outcome;
};

describe('how relayed connections end', () => {
  const servers = [];
  after(async () => {
    await stopAll();
    for (const server of servers) server.close();
  });

  for (const [role, signal] of [
    ['server', 'SIGTERM'],
    ['client', 'SIGINT'],
    ['server', 'SIGINT'],
    ['client', 'SIGTERM'],
  ]) {
    test(
      `a relay ${role} stopped by ${signal} mid-download resets the application's connection`,
      { timeout: 15_000 },
      async () => {
        const source = await endlessSource();
        servers.push(source.server);
        const server = await startRelayServer({ key: KEY, presets: SS });
        const client = await startRelayClient({
          serverPort: server.port,
          forwardPort: source.port,
          key: KEY,
          presets: SS,
        });
        const stopped = role === 'server' ? server : client;
        const { how, received } = await downloadCutBy(client.port, async () => {
          stopped.kill(signal);
          assert.deepEqual(await stopped.exited, { code: 0, signal: null });
        });
        assert.ok(received.length > 0, 'the download was under way');
        assert.equal(how, 'reset');
        await stopAll();
      },
    );
  }

  for (const presets of VMESS) {
    const security = presets[0].params.security;

    test(
      `VMess (${security}): a download that ends reaches the application whole, as an end`,
      { timeout: 15_000 },
      async () => {
        const bytes = Buffer.alloc(300_000, 3);
        const source = await finiteSource(bytes);
        servers.push(source.server);
        const server = await startRelayServer({ key: KEY, presets });
        const client = await startRelayClient({ serverPort: server.port, forwardPort: source.port, key: KEY, presets });
        const { how, received } = await fetchFrom(client.port, { end: true });
        assert.equal(how, 'end');
        assert.ok(received.equals(bytes), `${received.length} of ${bytes.length} bytes`);
        await stopAll();
      },
    );

    // A stand-in for a VMess server that dies between two chunks: it
    // answers the request with whole chunks, then a FIN, and (when `ends`)
    // the end chunk before it.
    const vmessServer = async (ends) => {
      const server = net.createServer({ allowHalfOpen: true }, (socket) => {
        socket.on('error', () => {});
        const pipeline = prepareChain(CATALOGUE, presets, { password: KEY })('server', { onTarget() {} });
        const encode = pipeline.encoder((data) => socket.write(data));
        const decode = pipeline.decoder(() => {});
        let answered = false;
        socket.on('data', (data) => {
          decode(data);
          if (answered) return;
          answered = true;
          encode(Buffer.alloc(100_000, 5));
          if (ends) pipeline.encodeEnded();
          socket.end();
        });
      });
      servers.push(server);
      return listening(server);
    };
    for (const [ends, expected] of [
      [false, 'reset'],
      [true, 'end'],
    ]) {
      test(
        `VMess (${security}): a server stream that stops ${ends ? 'after' : 'without'} its end chunk reaches the application as ${expected === 'reset' ? 'a reset' : 'an end'}`,
        { timeout: 10_000 },
        async () => {
          const client = await startRelayClient({
            serverPort: await vmessServer(ends),
            forwardPort: 9,
            key: KEY,
            presets,
          });
          const { how, received } = await fetchFrom(client.port);
          assert.equal(how, expected);
          assert.equal(received.length, 100_000, 'every whole chunk arrived first');
          await stopAll();
        },
      );
    }

    // The other way: a client killed between chunks. The target must see
    // the request cut as a reset, and a complete one as an end.
    for (const [ends, expected] of [
      [false, 'reset'],
      [true, 'end'],
    ]) {
      test(
        `VMess (${security}): a client stream that stops ${ends ? 'after' : 'without'} its end chunk reaches the target as ${expected === 'reset' ? 'a reset' : 'an end'}`,
        { timeout: 10_000 },
        async () => {
          let seen;
          const target = net.createServer({ allowHalfOpen: true }, (socket) => {
            const received = [];
            seen = new Promise((resolve) => {
              const outcome = (how) => resolve({ how, length: Buffer.concat(received).length });
              socket.on('data', (data) => received.push(data));
              // An empty write tells an end from a reset (see fetchFrom).
              socket.on('end', () => socket.write(Buffer.alloc(0), (error) => outcome(error ? 'reset' : 'end')));
              socket.on('error', (error) =>
                outcome(error.code === 'ECONNRESET' || error.code === 'EPIPE' ? 'reset' : error.code),
              );
            });
          });
          servers.push(target);
          const targetPort = await listening(target);
          const server = await startRelayServer({ key: KEY, presets });
          const socket = net.connect({ port: server.port, host: '127.0.0.1', allowHalfOpen: true });
          socket.on('error', () => {});
          const pipeline = prepareChain(CATALOGUE, presets, { password: KEY })('client', {
            target: { host: '127.0.0.1', port: targetPort },
          });
          const encode = pipeline.encoder((data) => socket.write(data));
          await new Promise((resolve) => socket.once('connect', resolve));
          encode(Buffer.alloc(50_000, 9));
          if (ends) pipeline.encodeEnded();
          socket.end();
          const until = Date.now() + 5000;
          while (!seen && Date.now() < until) await sleep(20);
          const { how, length } = await seen;
          socket.destroy();
          assert.equal(how, expected);
          assert.equal(length, 50_000, 'every whole chunk arrived first');
          await stopAll();
        },
      );
    }
  }
});
