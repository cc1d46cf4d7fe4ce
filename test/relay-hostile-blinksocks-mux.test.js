import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import '../lib/presets/index.js';
import { BLINKSOCKS_MUX_TARGET, encodeFrame, STATUS } from '../lib/wire/blinksocks-mux-frames.js';
import { startEchoServer } from './support/echo-server.js';
import {
  assertServerSaid,
  CLOSE_BOUND_MS,
  muxFrame,
  openMuxTunnel,
  startHostileMuxServers,
  testReplayReachesNoTarget,
  testServersCarryAsBefore,
  testTunnelRefusals,
} from './support/hostile-mux-server.js';

// What a client inside a blinksocks-mux tunnel may send our server that no
// client of the format sends, as relay-hostile-mux.test.js does for
// Mux.Cool: each closes that tunnel (a reset, its targets reset too) within
// a bound, with one line at debug level and no stack trace, and the server
// serves the next tunnel as before. blinksocks' own server bounds none of
// it (docs/notes/mux.md). The tunnels here have no cipher, so the frames go
// as they are; the replay is of an aes-256-gcm tunnel, whose salt the
// server remembers.
const KEY = 'hostile-blinksocks-mux-password';
const PLAIN = [{ name: 'blinksocks-mux', params: { concurrency: 2 } }];
const GCM = [
  { name: 'blinksocks-mux', params: { concurrency: 2 } },
  { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } },
];
// blinksocks' client bounds no tunnel's sessions: ours allows 128 open at
// once whatever the chain's concurrency (2 here).
const MOST_OPEN = 128;
const CHAINS = { busy: PLAIN, idle: GCM };
const FORMAT = { target: BLINKSOCKS_MUX_TARGET, encodeFrame, STATUS };

const frame = (fields) => muxFrame(FORMAT, fields);

describe('the blinksocks-mux server under hostile frames', () => {
  const servers = startHostileMuxServers({ key: KEY, chains: CHAINS });

  const data = (id, bytes = 'x') => frame({ id, status: STATUS.keep, data: Buffer.from(bytes) });
  const refusals = [
    {
      label: 'a Data frame for a session never opened',
      frames: () => [data(5)],
      reached: 0,
      line: /session 5, never opened/,
    },
    {
      label: 'a Close frame for a session never opened',
      frames: () => [frame({ id: 9, status: STATUS.end })],
      reached: 0,
      line: /session 9, never opened/,
    },
    {
      label: 'a session id opened again while open',
      frames: (target) => [
        frame({ id: 1, status: STATUS.new, target, data: Buffer.from('a') }),
        frame({ id: 1, status: STATUS.new, target, data: Buffer.from('b') }),
      ],
      reached: 1,
      line: /session id 1 opened a second time/,
    },
    {
      label: `more than ${MOST_OPEN} sessions open at once`,
      frames: (target) =>
        Array.from({ length: MOST_OPEN + 1 }, (_, i) =>
          frame({ id: 0x1000 + i, status: STATUS.new, target, data: Buffer.from('hi') }),
        ),
      reached: MOST_OPEN,
      line: new RegExp(`a session over ${MOST_OPEN} open at once`),
    },
    {
      label: 'a flood of Data frames of no bytes',
      frames: (target) => [
        frame({ id: 1, status: STATUS.new, target }),
        ...Array.from({ length: 65 }, () => frame({ id: 1, status: STATUS.keep, data: Buffer.alloc(0) })),
      ],
      reached: 1,
      line: /over 64 frames in a row carried nothing/,
    },
    {
      label: 'a frame of unknown command',
      frames: () => [Buffer.from([3, 0, 0, 0, 1])],
      reached: 0,
      line: /unknown frame command 3/,
    },
    {
      label: 'a New frame whose host is no host name',
      frames: () => [Buffer.from('00000000010300200a0050', 'hex')],
      reached: 0,
      line: /host is not a host name/,
    },
  ];
  testTunnelRefusals(refusals, { server: () => servers.busy, chain: PLAIN, key: KEY, format: FORMAT });

  // blinksocks' client picks each session's id at random and puts any
  // number of sessions on a tunnel: 1,100 in one tunnel's life (over
  // Mux.Cool's 1,024), one id twice once closed, and the tunnel still
  // carries the next.
  test('a tunnel of 1,100 sessions, one id used twice, goes on', { timeout: 20_000 }, async (t) => {
    const own = await startEchoServer();
    t.after(() => own.close());
    const target = { host: '127.0.0.1', port: own.port };
    const tunnel = openMuxTunnel(servers.busy.port, PLAIN, { key: KEY, format: FORMAT });
    const echoed = [];
    tunnel.socket.on('data', (bytes) => echoed.push(bytes));
    const open = (id) => frame({ id, status: STATUS.new, target });
    const close = (id) => frame({ id, status: STATUS.end });
    tunnel.write(...Array.from({ length: 1_099 }, (_, i) => [open(i + 1), close(i + 1)]).flat(), open(1));
    tunnel.write(data(1, 'still here'));
    const deadline = Date.now() + 15_000;
    const back = () => Buffer.concat(echoed).includes('still here');
    while (!back() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(back(), 'the last session was echoed');
    assert.ok(!tunnel.socket.destroyed, 'the tunnel is open');
    tunnel.socket.destroy();
  });

  // A Data frame of no bytes for the closed session every 250 ms keeps
  // bytes moving (the socket's idle timeout never fires), as a KeepAlive
  // would in Mux.Cool, which blinksocks' format lacks.
  test(
    'a tunnel with no session open is closed at the idle timeout, bytes moving or not',
    { timeout: 10_000 },
    async () => {
      const tunnel = openMuxTunnel(servers.idle.port, GCM, { key: KEY, format: FORMAT });
      tunnel.write(
        frame({
          id: 7,
          status: STATUS.new,
          target: { host: '127.0.0.1', port: servers.echo.port },
          data: Buffer.from('x'),
        }),
        frame({ id: 7, status: STATUS.end }),
      );
      const timer = setInterval(() => tunnel.write(frame({ id: 7, status: STATUS.keep, data: Buffer.alloc(0) })), 250);
      const { ms } = await tunnel.closed;
      clearInterval(timer);
      assert.ok(ms >= 900 && ms < CLOSE_BOUND_MS, `closed after ${ms} ms`);
      await assertServerSaid(servers.idle, /mux tunnel with no session for 1000 ms: closed/);
    },
  );

  testReplayReachesNoTarget('a replayed aes-256-gcm tunnel reaches no target', {
    servers,
    chain: GCM,
    key: KEY,
    format: FORMAT,
  });

  testServersCarryAsBefore('after all of it, the servers carry a blinksocks-mux client as before', {
    servers,
    chains: CHAINS,
    key: KEY,
  });
});
