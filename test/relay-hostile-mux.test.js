import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import '../lib/presets/index.js';
import { encodeFrame, MUX_COOL_TARGET, STATUS } from '../lib/wire/mux-cool.js';
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

// What a client inside an authenticated tunnel may send our mux server
// that no client of Mux.Cool sends: each closes that tunnel (a reset, and
// every target of it reset too) within a bound, with one line at debug
// level and no stack trace, and the server serves the next tunnel as
// before. The tunnels here are VLESS, which has no cipher, so the frames
// are written as they are; the replay is VMess's, whose header carries a
// one-time id.
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';
const KEY = 'hostile-mux-password';
const CONCURRENCY = 2;
const VLESS = [
  { name: 'vless', params: { id: ID } },
  { name: 'mux', params: { concurrency: CONCURRENCY } },
];
const VMESS = [
  { name: 'v2ray-vmess', params: { id: ID, security: 'aes-128-gcm' } },
  { name: 'mux', params: { concurrency: CONCURRENCY } },
];
const CHAINS = { busy: VLESS, idle: VMESS };
const FORMAT = { target: MUX_COOL_TARGET, encodeFrame, STATUS };

const frame = (fields) => muxFrame(FORMAT, fields);

describe('the mux server under hostile frames', () => {
  const servers = startHostileMuxServers({ key: KEY, chains: CHAINS });

  const refusals = [
    {
      label: 'a Keep frame for a session never opened',
      frames: () => [frame({ id: 5, status: STATUS.keep, data: Buffer.from('x') })],
      reached: 0,
      line: /session 5, never opened/,
    },
    {
      label: 'an End frame for a session never opened',
      frames: () => [frame({ id: 9, status: STATUS.end })],
      reached: 0,
      line: /session 9, never opened/,
    },
    {
      label: 'a session id opened a second time',
      frames: (target) => [
        frame({ id: 1, status: STATUS.new, target }),
        frame({ id: 1, status: STATUS.end }),
        frame({ id: 1, status: STATUS.new, target }),
      ],
      reached: 1,
      line: /session id 1 opened a second time/,
    },
    {
      label: `more than ${CONCURRENCY} sessions open at once`,
      frames: (target) => [1, 2, 3].map((id) => frame({ id, status: STATUS.new, target, data: Buffer.from('hello') })),
      reached: CONCURRENCY,
      line: new RegExp(`a session over ${CONCURRENCY} open at once`),
    },
    {
      label: 'a 1,025th session in one tunnel',
      frames: (target) =>
        Array.from({ length: 1025 }, (_, i) => [
          frame({ id: i + 1, status: STATUS.new, target }),
          frame({ id: i + 1, status: STATUS.end }),
        ]).flat(),
      reached: 1024,
      line: /over 1024 sessions on one tunnel/,
    },
    {
      label: 'metadata of 513 bytes',
      frames: () => [Buffer.concat([Buffer.from([0x02, 0x01]), Buffer.alloc(513)])],
      reached: 0,
      line: /metadata of 513 bytes, over 512/,
    },
    {
      label: 'a flood of KeepAlive frames',
      frames: () => Array.from({ length: 65 }, () => frame({ id: 0, status: STATUS.keepAlive })),
      reached: 0,
      line: /over 64 frames in a row carried nothing/,
    },
    {
      label: 'a flood of Keep frames whose data is 0 bytes',
      frames: (target) => [
        frame({ id: 1, status: STATUS.new, target }),
        ...Array.from({ length: 65 }, () => frame({ id: 1, status: STATUS.keep, data: Buffer.alloc(0) })),
      ],
      reached: 1,
      line: /over 64 frames in a row carried nothing/,
    },
    {
      label: 'a frame of unknown status',
      frames: () => [Buffer.from([0, 4, 0, 1, 9, 0])],
      reached: 0,
      line: /unknown frame status 9/,
    },
  ];
  testTunnelRefusals(refusals, { server: () => servers.busy, chain: VLESS, key: KEY, format: FORMAT });

  // A KeepAlive every 250 ms keeps bytes moving (the socket's idle timeout
  // never fires), but holds no tunnel open without a session.
  test(
    'a tunnel with no session open is closed at the idle timeout, KeepAlives or not',
    { timeout: 10_000 },
    async () => {
      const tunnel = openMuxTunnel(servers.idle.port, VMESS, { key: KEY, format: FORMAT });
      const keepAlive = () => tunnel.write(frame({ id: 0, status: STATUS.keepAlive }));
      keepAlive();
      const timer = setInterval(keepAlive, 250);
      const { ms } = await tunnel.closed;
      clearInterval(timer);
      assert.ok(ms >= 900 && ms < CLOSE_BOUND_MS, `closed after ${ms} ms`);
      await assertServerSaid(servers.idle, /mux tunnel with no session for 1000 ms: closed/);
    },
  );

  testReplayReachesNoTarget('a replayed VMess tunnel reaches no target', {
    servers,
    chain: VMESS,
    key: KEY,
    format: FORMAT,
  });

  testServersCarryAsBefore('after all of it, the servers carry a mux client as before', {
    servers,
    chains: CHAINS,
    key: KEY,
  });
});
