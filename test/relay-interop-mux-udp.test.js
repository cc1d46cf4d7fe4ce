import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { v2rayClientConfig, v2rayServerConfig } from '../lib/peers/v2ray.js';
import { xrayClientConfig, xrayServerConfig } from '../lib/peers/xray.js';
import { MUX_COOL_PAIRINGS, startMuxCoolPeer } from './support/mux-cool-peers.js';
import { freePorts } from './support/ports.js';
import { startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';
import { socks5UdpAssociate, socks5UdpFrame } from './support/socks5-udp.js';
import { assertUdpCarried, startUdpEchoServer } from './support/udp-echo.js';

// UDP over Mux.Cool (network 2, and Xray's XUDP) both ways against its
// references: their client with mux on, UDP from its SOCKS5 inbound, to
// our server; our client (a [protocol, mux] chain, UDP from its SOCKS5
// UDP ASSOCIATE and from its --udp port forward) to their server. Each
// path carries COUNT numbered datagrams to a UDP echo target on loopback
// and back, each compared on return, their SHA-256 at the target checked.
const KEY = 'mux-udp-interop-password';
const COUNT = 1000;
const SIZE = 1200;
const CONCURRENCY = 8;

// Their client's SOCKS5 inbound with UDP on (the rows' configs turn it off).
const withSocksUdp = (config) => ({
  ...config,
  inbounds: config.inbounds.map((inbound) => ({
    ...inbound,
    settings: { ...inbound.settings, udp: true, ip: '127.0.0.1' },
  })),
});

const configs = {
  xray: {
    server: xrayServerConfig,
    client: (user) => withSocksUdp(xrayClientConfig({ ...user, inbound: 'socks5', mux: CONCURRENCY })),
  },
  v2ray: {
    server: v2rayServerConfig,
    client: (user) => withSocksUdp(v2rayClientConfig({ ...user, inbound: 'socks5', mux: CONCURRENCY })),
  },
};

// COUNT datagrams through a SOCKS5 UDP ASSOCIATE at `port` to the echo target.
async function assertCarriedBySocks5(echo, port, label) {
  const association = await socks5UdpAssociate({ port });
  try {
    const frame = socks5UdpFrame({ host: '127.0.0.1', port: echo.port });
    await assertUdpCarried(echo, { [label]: { ...association.relay, frame } }, { count: COUNT, size: SIZE });
  } finally {
    association.close();
  }
}

describe('UDP over Mux.Cool, wire compatibility', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'cipherbench-mux-udp-'));
  let echo;
  after(async () => {
    await stopAll();
    await echo?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  for (const { program, label, user, address } of MUX_COOL_PAIRINGS) {
    test(`${label} + mux, UDP: ${program} -> ours`, { timeout: 60_000 }, async (t) => {
      if (!requirePrograms(t, program)) return;
      echo ??= await startUdpEchoServer();
      t.after(stopAll);
      const presets = [address, { name: 'mux', params: { concurrency: CONCURRENCY } }];
      // --udp as `run --udp` starts it: with mux, no UDP port of its own.
      const ourServer = await startRelayServer({ key: KEY, presets, extra: ['--udp', '--log-level', 'debug'] });
      const [theirClientPort] = await freePorts(1);
      await startMuxCoolPeer(
        program,
        folder,
        `${program}-client`,
        configs[program].client({ ...user, port: theirClientPort, serverPort: ourServer.port }),
        theirClientPort,
      );
      await assertCarriedBySocks5(echo, theirClientPort, `${program} -> ours`);
      assert.match(ourServer.output, /udp: carried in the mux tunnels of the TCP port/);
      assert.match(ourServer.output, new RegExp(`mux UDP session \\d+ to 127\\.0\\.0\\.1:${echo.port}`));
    });

    // Our client's two UDP inbounds: SOCKS5 UDP ASSOCIATE and the --udp
    // port forward that `run --udp` measures through.
    test(`${label} + mux, UDP: ours -> ${program}`, { timeout: 60_000 }, async (t) => {
      if (!requirePrograms(t, program)) return;
      echo ??= await startUdpEchoServer();
      t.after(stopAll);
      const presets = [address, { name: 'mux', params: { concurrency: CONCURRENCY } }];
      const [theirServerPort] = await freePorts(1);
      await startMuxCoolPeer(
        program,
        folder,
        `${program}-server`,
        configs[program].server({ ...user, port: theirServerPort }),
        theirServerPort,
      );
      const common = { serverPort: theirServerPort, key: KEY, presets };
      const [socks, forward] = await Promise.all([
        startRelayClient({ ...common, inbound: 'socks5', extra: ['--udp'] }),
        startRelayClient({ ...common, forwardPort: echo.port, extra: ['--udp'] }),
      ]);
      await assertCarriedBySocks5(echo, socks.port, `ours (SOCKS5 UDP ASSOCIATE) -> ${program}`);
      await assertUdpCarried(
        echo,
        { [`ours (--udp port forward) -> ${program}`]: forward.port },
        { count: COUNT, size: SIZE },
      );
    });
  }
});
