import assert from 'node:assert/strict';
import { test } from 'node:test';
import { casesFolder, runCli, UDP_RUN } from './support/cli.js';
import { freePortsFlag } from './support/ports.js';
import { requirePrograms } from './support/programs.js';

// run --udp with V2Ray rows: iperf3 -u through V2Ray 4.x at both ends
// (dokodemo-door taking TCP and UDP to the target port, VMess or VLESS),
// then, with --latency, 2,000 datagrams of random bytes to a UDP echo
// target and back, each echo compared with what was sent. Loss is bounded
// loosely, as loopback UDP on a loaded machine drops what it drops; a path
// that broke datagrams (V2Ray 4.34's trojan) loses over 99%.

test(
  'run --udp through V2Ray (vmess, vless over TLS): datagrams measured by iperf3 -u, echoes byte for byte',
  { timeout: 180_000 },
  async (t) => {
    if (!requirePrograms(t, 'v2ray', 'iperf3')) return;
    const cases = [
      { impl: 'v2ray', security: 'aes-128-gcm' },
      { impl: 'v2ray', protocol: 'vless', tls: true },
    ];
    const { code, stdout, stderr } = await runCli([...UDP_RUN, '--latency', ...(await freePortsFlag())], {
      cwd: casesFolder(cases),
      env: { NO_COLOR: '1' },
    });
    assert.equal(code, 0, stderr);
    const result = JSON.parse(stdout);
    assert.deepEqual(
      result.cases.map((c) => c.label),
      ['v2ray vmess aes-128-gcm', 'v2ray vless + tls'],
    );
    for (const caseResult of result.cases) {
      assert.equal(caseResult.status, 'ok', caseResult.reason);
      const { udp, latency } = caseResult;
      assert.deepEqual([udp.offeredBps, udp.length], [20e6, 1200]);
      assert.ok(
        udp.packets > 0 && udp.lost_percent < 50,
        `${caseResult.label}: ${JSON.stringify(udp)}: most datagrams crossed V2Ray whole`,
      );
      assert.ok(
        latency.udpRtt.count > 1000,
        `${caseResult.label}: ${JSON.stringify(latency.udpRtt)}: echoes came back, each equal to its datagram`,
      );
    }
  },
);

test('run --udp with a V2Ray trojan row: refused before anything starts, saying why', async () => {
  for (const row of [
    { impl: 'v2ray', protocol: 'trojan' },
    { impl: 'v2ray', protocol: 'trojan', tls: true },
  ]) {
    const { code, stdout, stderr, commands } = await runCli([...UDP_RUN, ...(await freePortsFlag())], {
      cwd: casesFolder([{ impl: 'v2ray', security: 'none' }, row]),
    });
    assert.equal(code, 2, stderr);
    assert.equal(stdout, '');
    assert.match(
      stderr,
      /^cipherbench: --udp: case 1, v2ray trojan( \+ tls)?, has no UDP form \(V2Ray 4\.34's trojan merges and splits datagrams\); leave it out with --filter, or run without --udp\n$/,
    );
    assert.deepEqual(
      commands.filter((line) => /iperf3|v2ray/.test(line)),
      [],
      'nothing started',
    );
  }
});
