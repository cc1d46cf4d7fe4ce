import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { costBetween, readProcessCost } from '../lib/process/process-cost.js';

// A child that costs a known amount: it touches 64 MB (Buffer.alloc zero-
// fills, so every page is resident) and spins until its own CPU clock reads
// 0.5 s, start-up included, then waits to be measured.
const BURNER = `
  const kept = Buffer.alloc(64 * 1024 * 1024, 1);
  const cpu = () => { const { user, system } = process.cpuUsage(); return (user + system) / 1e6; };
  while (cpu() < 0.5);
  process.stdout.write('burnt ' + kept.length + '\\n');
  setInterval(() => {}, 1000);
`;

test(
  'reads CPU seconds and peak RSS of a process that burnt a known amount',
  { skip: process.platform !== 'linux' && 'needs /proc' },
  async () => {
    const child = spawn(process.execPath, ['-e', BURNER], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await once(child.stdout, 'data');
      const cost = await readProcessCost(child.pid);
      assert.deepEqual(Object.keys(cost), ['cpuSeconds', 'userSeconds', 'systemSeconds', 'peakRssBytes']);
      assert.ok(Math.abs(cost.cpuSeconds - 0.5) <= 0.15, `cpuSeconds ${cost.cpuSeconds}`);
      assert.equal(cost.cpuSeconds, Math.round((cost.userSeconds + cost.systemSeconds) * 1e6) / 1e6);
      assert.ok(cost.peakRssBytes >= 50 * 1024 * 1024, `peakRssBytes ${cost.peakRssBytes}`);
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    assert.equal(await readProcessCost(child.pid), null, 'a process that has gone has no cost');
  },
);

test('the cost between two reads: CPU spent in between, the peak as of the later read', () => {
  const before = { cpuSeconds: 0.15, userSeconds: 0.14, systemSeconds: 0.01, peakRssBytes: 50e6 };
  const after = { cpuSeconds: 1.37, userSeconds: 1.05, systemSeconds: 0.32, peakRssBytes: 80e6 };
  assert.deepEqual(costBetween(before, after), {
    cpuSeconds: 1.22,
    userSeconds: 0.91,
    systemSeconds: 0.31,
    peakRssBytes: 80e6,
  });
  assert.equal(costBetween(null, after), null);
  assert.equal(costBetween(before, null), null);
});

test(
  'a process that works in a child costs what the child costs too',
  { skip: process.platform !== 'linux' && 'needs /proc' },
  async () => {
    // shadowsocks-libev runs its plugin so: the relay's cost must include it.
    const PARENT = `
    const { spawn } = require('node:child_process');
    const child = spawn(process.execPath, ['-e', ${JSON.stringify(BURNER)}], { stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.pipe(process.stdout);
    process.on('SIGTERM', () => {
      child.kill('SIGKILL');
      child.once('exit', () => process.exit(0));
    });
  `;
    const parent = spawn(process.execPath, ['-e', PARENT], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await once(parent.stdout, 'data');
      const cost = await readProcessCost(parent.pid);
      assert.ok(cost.cpuSeconds >= 0.45, `cpuSeconds ${cost.cpuSeconds}: the child's 0.5 s are in`);
      assert.ok(cost.peakRssBytes >= 50 * 1024 * 1024, `peakRssBytes ${cost.peakRssBytes}: the child's 64 MB are in`);
    } finally {
      // SIGTERM, so the parent stops its child before it goes.
      parent.kill('SIGTERM');
      await once(parent, 'exit');
    }
  },
);
