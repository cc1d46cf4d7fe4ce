import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { execa } from 'execa';
import { collectEnvironment } from '../lib/runner/environment.js';
import { requirePrograms, which } from './support/programs.js';

// "Fast" is measured against a yardstick taken under the same load: the
// time to start a Node.js process and let it exit. On a quiet machine the
// bound is 1.5 s; a machine loaded so that a process takes 4 s to start
// (the whole suite beside other work) stretches both alike, while a slow
// systeminformation call (seconds of probing) still breaks it.
test('describes this machine fast, with every field of docs/result.md', async () => {
  const spawnStarted = performance.now();
  await execa(process.execPath, ['-e', '0']);
  const yardstick = performance.now() - spawnStarted;
  const started = performance.now();
  const environment = await collectEnvironment({ iperf3Path: null });
  const took = performance.now() - started;
  assert.ok(
    took < Math.max(1500, 3 * yardstick),
    `collected in ${took.toFixed(0)} ms; a Node.js process started in ${yardstick.toFixed(0)} ms`,
  );

  assert.deepEqual(Object.keys(environment).sort(), ['cpu', 'iperf3', 'memory', 'node', 'os']);
  const { cpu } = environment;
  assert.equal(typeof cpu.model, 'string');
  assert.ok(cpu.model.length > 0);
  assert.ok(Number.isInteger(cpu.cores) && cpu.cores > 0);
  assert.ok(Number.isInteger(cpu.physicalCores) && cpu.physicalCores > 0);
  assert.ok([true, false, null].includes(cpu.aes));
  assert.equal(environment.memory, os.totalmem());
  assert.deepEqual(environment.os, {
    type: os.type(),
    platform: os.platform(),
    arch: os.arch(),
    release: os.release(),
    distro: environment.os.distro,
  });
  assert.equal(typeof environment.os.distro, 'string');
  assert.deepEqual(environment.node, process.versions);
  assert.deepEqual(environment.iperf3, { path: null, version: null });
});

test('reports the iperf3 version that iperf3 itself prints', async (t) => {
  if (!requirePrograms(t, 'iperf3')) return;
  const iperf3Path = which('iperf3');
  const { iperf3 } = await collectEnvironment({ iperf3Path });
  const { stdout } = await execa(iperf3Path, ['--version']);
  assert.equal(iperf3.path, iperf3Path);
  assert.match(iperf3.version, /^3\.\d+/);
  assert.ok(stdout.startsWith(`iperf ${iperf3.version} `), stdout);
});

test('a program that does not print an iperf3 version gives a null version', async () => {
  const { iperf3 } = await collectEnvironment({ iperf3Path: process.execPath });
  assert.deepEqual(iperf3, { path: process.execPath, version: null });
});
