import net from 'node:net';
import { ssServerArgs, ssTunnelArgs, startProcess } from './processes.js';

// shadowsocks-libev with the simple-obfs plugin on loopback: ss-server
// starts obfs-server on `port` (itself on a port of its own), ss-tunnel
// starts obfs-local. Each is ready once the plugin says it listens (after
// it does), and ss-tunnel once its own port listens too: it forks the
// plugin first. SIGTERM to the parent stops the plugin too.
const PLUGIN_READY = /\[simple-obfs\] INFO: listening at /;

const pluginOptions = ({ obfs, host }) => (host ? `obfs=${obfs};obfs-host=${host}` : `obfs=${obfs}`);

export const startSsServerWithObfs = ({ obfs, host, ...options }) =>
  startProcess(
    'ss-server',
    [...ssServerArgs(options), '--plugin', 'obfs-server', '--plugin-opts', pluginOptions({ obfs, host })],
    { ready: PLUGIN_READY },
  );

export const startSsTunnelWithObfs = ({ obfs, host, ...options }) =>
  startProcess(
    'ss-tunnel',
    [...ssTunnelArgs(options), '--plugin', 'obfs-local', '--plugin-opts', pluginOptions({ obfs, host })],
    { ready: PLUGIN_READY, listening: options.port },
  );

// obfs-local and obfs-server alone, as plugins run without a parent:
// obfs-local listens on `port` and wraps what it gets for `serverPort`;
// obfs-server listens on `port` and forwards what it unwraps to `forwardPort`.
const READY = /listening at /;

export const startObfsLocal = ({ port, serverPort, obfs, host }) =>
  startProcess(
    'obfs-local',
    ['-s', '127.0.0.1', '-p', String(serverPort), '-l', String(port), '--obfs', obfs, '--obfs-host', host],
    { ready: READY },
  );

export const startObfsServer = ({ port, forwardPort, obfs }) =>
  startProcess(
    'obfs-server',
    ['-s', '127.0.0.1', '-p', String(port), '-r', `127.0.0.1:${forwardPort}`, '--obfs', obfs],
    { ready: READY },
  );

const pause = () => new Promise((resolve) => setTimeout(resolve, 50));

// A listener for one connection that records every byte it brings. Once
// `expectBytes` have come it writes `answers`, one at a time with a pause
// between (so each is a read of its own at the far side), and closes.
// Resolves with { port, received }: received resolves with the bytes once
// the connection has closed.
export async function startRecorder({ expectBytes = Infinity, answers = [] } = {}) {
  let record;
  const received = new Promise((resolve) => {
    record = resolve;
  });
  const server = net.createServer(async (socket) => {
    const chunks = [];
    let length = 0;
    socket.on('error', () => {});
    socket.on('close', () => {
      server.close();
      record(Buffer.concat(chunks));
    });
    await new Promise((resolve) =>
      socket.on('data', (data) => {
        chunks.push(data);
        length += data.length;
        if (length >= expectBytes) resolve();
      }),
    );
    for (const answer of answers) {
      socket.write(answer);
      await pause();
    }
    socket.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: server.address().port, received };
}

// Connects to `port`, writes `writes` one at a time with a pause between,
// closes then when `end`, and resolves with every byte that came back once
// the connection has closed.
export function exchange({ port, writes, end = false, timeoutMs = 5000 }) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const chunks = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`exchange through :${port} timed out`));
    }, timeoutMs);
    socket.on('connect', async () => {
      for (const write of writes) {
        socket.write(write);
        await pause();
      }
      if (end) socket.end();
    });
    socket.on('data', (data) => chunks.push(data));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
  });
}
