import { after, before, describe, test } from 'node:test';
import { freePorts } from './support/ports.js';
import { explainWith, startProcess, startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';
import { socks5UdpAssociate, socks5UdpFrame } from './support/socks5-udp.js';
import { assertUdpCarried, startUdpEchoServer } from './support/udp-echo.js';

// SOCKS5 UDP ASSOCIATE through `relay client --inbound socks5 --udp`, with
// the test's own SOCKS5 UDP client (support/socks5-udp.js), proven first
// against shadowsocks-libev's ss-local -u:
//   ss-local -u -> ss-server -u -> UDP echo   (the test's client, against the reference)
//   ours -> ours -> UDP echo
//   ours -> ss-server -u -> UDP echo           (our datagrams open in libev, its replies in ours)
//   ss-local -u -> ours -> UDP echo            (libev's open in ours, ours in libev)
// 2,000 datagrams of 1,200 bytes per path, each compared byte for byte on
// return (its SOCKS5 header naming the echo target as source) and at the
// echo target (SHA-256 over all); a lost one is sent again, a changed one
// fails.
const KEY = 'socks5-udp-password';
const CHAINS = [
  { method: 'aes-256-gcm', presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }] },
  { method: 'aes-256-ctr', presets: [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } }] },
];
const UDP = ['--udp'];

describe('SOCKS5 UDP ASSOCIATE, byte for byte, with shadowsocks-libev both ways', () => {
  let echo;
  before(async () => {
    echo = await startUdpEchoServer();
  });
  after(async () => {
    await stopAll();
    await echo.close();
  });

  for (const { method, presets } of CHAINS) {
    test(method, { timeout: 400_000 }, async (t) => {
      if (!requirePrograms(t, 'ss-server', 'ss-local')) return;
      t.after(stopAll);
      const [theirServerPort, theirClientPort, theirOtherClientPort] = await freePorts(3);
      const ss = (command, args, port) => startProcess(command, [...args, '-k', KEY, '-m', method], { ready: /listening at/, listening: port });
      const [ourServer, theirServer] = await Promise.all([
        startRelayServer({ key: KEY, presets, extra: UDP }),
        ss('ss-server', ['-u', '-s', '127.0.0.1', '-p', String(theirServerPort)], theirServerPort),
      ]);
      const local = (port, serverPort) => ss('ss-local', ['-u', '-s', '127.0.0.1', '-p', String(serverPort), '-b', '127.0.0.1', '-l', String(port)], port);
      const [theirClient, theirClientToOurs, ourClient, ourClientToTheirs] = await Promise.all([
        local(theirClientPort, theirServerPort),
        local(theirOtherClientPort, ourServer.port),
        startRelayClient({ serverPort: ourServer.port, key: KEY, presets, inbound: 'socks5', extra: UDP }),
        startRelayClient({ serverPort: theirServerPort, key: KEY, presets, inbound: 'socks5', extra: UDP }),
      ]);
      const explain = explainWith([ourServer, theirServer, theirClient, theirClientToOurs, ourClient, ourClientToTheirs]);
      const frame = socks5UdpFrame({ host: '127.0.0.1', port: echo.port });
      const paths = {
        'ss-local -> ss-server (the test client against the reference)': theirClientPort,
        'ours -> ours': ourClient.port,
        'ours -> ss-server': ourClientToTheirs.port,
        'ss-local -> ours': theirOtherClientPort,
      };
      for (const [path, port] of Object.entries(paths)) {
        let association;
        try {
          association = await socks5UdpAssociate({ port });
        } catch (error) {
          throw explain(path, error);
        }
        try {
          await assertUdpCarried(echo, { [path]: { ...association.relay, frame } }, { explain });
        } finally {
          association.close();
        }
      }
    });
  }
});
