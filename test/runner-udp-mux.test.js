import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { emptyFolder, runCli } from './support/cli.js';
import { freePortsFlag } from './support/ports.js';
import { requirePrograms } from './support/programs.js';

// run --udp through a multiplexing chain: iperf3 -u's datagrams ride Mux.Cool
// UDP sessions in the relays' tunnel (the relay client's port forward, the
// server's UDP sessions; no UDP port between the relays). Loss is not
// asserted (loopback UDP on a loaded machine drops what it drops); that
// datagrams crossed is: before, --udp refused the chain, exit 2.
const ID = 'b831381d-6324-4d53-ad4f-8cda48b30811';

test('run --udp through [vless, mux]: datagrams cross as Mux.Cool UDP sessions', { timeout: 120_000 }, async (t) => {
  if (!requirePrograms(t, 'iperf3')) return;
  const cwd = emptyFolder();
  writeFileSync(
    path.join(cwd, 'cases.json'),
    JSON.stringify([[{ name: 'vless', params: { id: ID } }, { name: 'mux' }]]),
  );
  const { code, stdout, stderr } = await runCli(
    ['run', 'cases.json', '--udp', '--rate', '10M', '--duration', '1', '--no-ceiling', '--json', '--no-archive'].concat(
      await freePortsFlag(),
    ),
    { cwd, env: { NO_COLOR: '1' } },
  );
  assert.equal(code, 0, stderr);
  const [caseResult] = JSON.parse(stdout).cases;
  assert.equal(caseResult.status, 'ok', caseResult.reason);
  const { udp } = caseResult;
  assert.ok(udp.packets > 0 && udp.lost_packets < udp.packets, `${JSON.stringify(udp)}: datagrams crossed the relays`);
  assert.ok(caseResult.receiver.bytes > 0);
});
