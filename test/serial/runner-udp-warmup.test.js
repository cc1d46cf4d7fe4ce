import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { emptyFolder, runCli } from '../support/cli.js';
import { freePortsFlag } from '../support/ports.js';
import { requirePrograms } from '../support/programs.js';

// run --udp --warmup sends iperf3 -u tests one after another through the
// same relays. Offered past what our relays carry, their buffers still hold
// datagrams of one test as the next starts, and iperf3 -s answered the next
// test's first datagram to the old sender: that iperf3 -c waited until the
// runner stopped it. Serial: 1 Gbit/s of datagrams would crowd the tests
// beside it.
const AES = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];

test(
  'run --udp --warmup past what the relays carry: each warm-up transfer and the counted one finish',
  { timeout: 120_000 },
  async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const cwd = emptyFolder();
    writeFileSync(path.join(cwd, 'cases.json'), JSON.stringify([AES]));
    const { code, stdout, stderr } = await runCli(
      [
        'run',
        'cases.json',
        '--udp',
        '--rate',
        '1G',
        '--warmup',
        '2',
        '--duration',
        '1',
        '--no-ceiling',
        '--json',
        '--no-archive',
        ...(await freePortsFlag()),
      ],
      { cwd, env: { NO_COLOR: '1' } },
    );
    const result = JSON.parse(stdout);
    const [measured] = result.cases;
    assert.equal(measured.status, 'ok', measured.reason);
    assert.equal(code, 0, stderr);
    assert.equal(result.options.warmup, 2);
    assert.ok(measured.udp.packets > 0, JSON.stringify(measured.udp));
  },
);
