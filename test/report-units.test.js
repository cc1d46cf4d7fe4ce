import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { formatBitrate, formatBitrateIn, formatBytes, formatFixed, formatInterval } from '../lib/report/units.js';
import { freePort } from './support/ports.js';
import { requirePrograms } from './support/programs.js';

test('figures iperf3 3.12 printed on this machine for the same JSON numbers', () => {
  // From `iperf3 -c 127.0.0.1 -t 1 -J --get-server-output` on loopback: the
  // JSON end.sum_received next to the server's own text summary line.
  assert.equal(formatBytes(3949199360), '3.68 GBytes');
  assert.equal(formatBitrate(31563956325.010815), '31.6 Gbits/sec');
  // From `-n 300M -R`: end.sum_sent next to the server's sender line.
  assert.equal(formatBytes(314572800), '300 MBytes');
  assert.equal(formatBitrate(33686032098.732384), '33.7 Gbits/sec');
  assert.equal(formatInterval(0, 0.074707), '0.00-0.07   sec');
});

test('at most four digits, bytes in 1024 steps and bits in 1000 steps', () => {
  assert.equal(formatBytes(0), '0.00 Bytes');
  assert.equal(formatBytes(512), '512 Bytes');
  assert.equal(formatBytes(1000 * 1024), '1000 KBytes');
  assert.equal(formatBytes(1024 * 1024), '1.00 MBytes');
  assert.equal(formatBytes(15.2 * 1024 * 1024), '15.2 MBytes');
  assert.equal(formatBytes(994 * 1024 * 1024), '994 MBytes');
  assert.equal(formatBytes(1.89 * 1024 ** 3), '1.89 GBytes');
  assert.equal(formatBitrate(887e6), '887 Mbits/sec');
  assert.equal(formatBitrate(5.42e9), '5.42 Gbits/sec');
  assert.equal(formatBitrate(9_995_000), '10.0 Mbits/sec');
  assert.equal(formatBitrate(999_500), '1000 Kbits/sec');
});

test('ties round to even as glibc printf does, not up as toFixed does', () => {
  assert.equal(formatFixed(0.125, 2), '0.12');
  assert.equal(formatFixed(0.375, 2), '0.38');
  assert.equal(formatFixed(0.25, 1), '0.2');
  assert.equal(formatFixed(1.005, 2), '1.00');
  // 100.5 MBytes exactly: printf '%4.0f' gives ' 100'.
  assert.equal(formatBytes(100.5 * 1024 * 1024), '100 MBytes');
});

test('intervals read like iperf3 summary lines', () => {
  assert.equal(formatInterval(0, 3), '0.00-3.00   sec');
  assert.equal(formatInterval(0, 3.31), '0.00-3.31   sec');
  assert.equal(formatInterval(0, 10.004), '0.00-10.00  sec');
});

test("a spread prints in its median's unit, digits chosen by its own size", () => {
  assert.equal(formatBitrateIn(2.31e9, 2.45e9), '2.31');
  assert.equal(formatBitrateIn(980e6, 2.45e9), '0.98');
  assert.equal(formatBitrateIn(12.5e9, 2.45e9), '12.5');
  assert.equal(formatBitrateIn(1.2e9, 887e6), '1200');
  assert.equal(formatBitrateIn(887e6, 887e6), formatBitrate(887e6).split(' ')[0]);
});

// Each run sends a fixed amount (-n) so it lasts well under a second; the
// server's text summary line is iperf3's own formatting of the numbers the
// client's JSON carries. -R makes the server the sender, so its line is the
// sender row; otherwise it prints the receiver row.
const LIVE_RUNS = [
  { args: ['-n', '1500M'], role: 'receiver' },
  { args: ['-n', '300M', '-R'], role: 'sender' },
  { args: ['-n', '600K', '-b', '40M'], role: 'receiver' },
];

for (const { args, role } of LIVE_RUNS) {
  test(`matches iperf3's own ${role} line for ${args.join(' ')}`, async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const port = await freePort();
    // --forceflush: into a pipe iperf3 would hold 'Server listening' until exit.
    const server = execa('iperf3', ['-s', '-1', '--forceflush', '-B', '127.0.0.1', '-p', String(port)], {
      timeout: 20_000,
    });
    t.after(() => server.kill());
    await new Promise((resolve, reject) => {
      server.stdout.on('data', (data) => data.includes('Server listening') && resolve());
      server.then(({ stdout }) => reject(new Error(`iperf3 -s exited before listening:\n${stdout}`)), reject);
    });
    const client = await execa(
      'iperf3',
      ['-c', '127.0.0.1', '-p', String(port), ...args, '-J', '--get-server-output'],
      {
        timeout: 20_000,
      },
    );
    await server;
    const run = JSON.parse(client.stdout);
    const line = run.server_output_text.split('\n').find((text) => text.trimEnd().endsWith(role));
    const [, interval, transfer, bitrate] = /(\d+\.\d+-\d+\.\d+ +sec) +(\S+ \S+) +(\S+ \S+)/.exec(line);
    const sum = role === 'sender' ? run.end.sum_sent : run.end.sum_received;
    assert.equal(formatBytes(sum.bytes), transfer);
    assert.equal(formatBitrate(sum.bits_per_second), bitrate);
    assert.equal(formatInterval(0, sum.seconds), interval);
  });
}
