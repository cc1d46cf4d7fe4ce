import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { run } from '../lib/runner/run.js';
import { archivedJson, emptyFolder, runCli } from './support/cli.js';
import { freePortsFlag, freeRunPorts } from './support/ports.js';
import { requirePrograms } from './support/programs.js';

const AES = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }];

// The built-in engine; strace counts our relays' system calls.
test(
  '--profile: our relays under the CPU profiler, the .cpuprofile files beside the archive, the busiest functions and system calls in the report',
  { timeout: 90_000 },
  async (t) => {
    if (!requirePrograms(t, 'strace')) return;
    const cwd = emptyFolder();
    writeFileSync(path.join(cwd, 'cases.js'), `export default ${JSON.stringify([AES, { impl: 'direct' }])};\n`);
    const { code, stdout, stderr } = await runCli(
      ['--profile', '--engine', 'node', '--duration', '1', '--no-ceiling', ...(await freePortsFlag())],
      { cwd, env: { NO_COLOR: '1' } },
    );
    assert.equal(code, 0, stderr);
    const archived = archivedJson(cwd);
    assert.equal(archived.options.profile, path.join(cwd, 'reports', 'profiles'));
    const [chain, direct] = archived.cases;
    const { profile } = chain.runs[0];
    assert.equal(profile.reason, null);
    for (const role of ['client', 'server']) {
      const file = profile.files[role];
      assert.ok(file.startsWith(path.join(cwd, 'reports', 'profiles', path.sep)), file);
      // A V8 CPU profile, as DevTools and speedscope open it.
      const written = JSON.parse(readFileSync(file, 'utf8'));
      assert.ok(
        written.nodes.length > 10 && written.samples.length > 0 && written.timeDeltas.length === written.samples.length,
      );
      assert.ok(profile.top[role].length > 0);
      const shares = profile.top[role].map((entry) => entry.selfShare);
      assert.deepEqual(
        shares,
        [...shares].sort((a, b) => b - a),
        'busiest first',
      );
      assert.ok(shares.every((share) => share > 0 && share <= 1));
      assert.match(stdout, new RegExp(`\\nprofile ${role} +${file.replaceAll('.', '\\.')}\\n {17} *\\d+\\.\\d%  \\S`));
    }
    // Counted on a pair of their own over a transfer of their own.
    const { syscalls } = profile;
    assert.ok(syscalls.bytes > 0 && syscalls.seconds > 0, JSON.stringify(syscalls));
    for (const role of ['client', 'server']) {
      const { reads, writes, readsPerGB, bytesPerRead, bytesPerWrite } = syscalls[role];
      assert.ok(reads > 0 && writes > 0, `${role}: ${JSON.stringify(syscalls[role])}`);
      assert.equal(readsPerGB, reads / (syscalls.bytes / 1e9));
      // A relay reads and writes more than a byte and at most its socket buffer at a time.
      assert.ok(
        bytesPerRead > 1 && bytesPerRead < 16 * 2 ** 20 && bytesPerWrite > 1,
        `${role}: ${bytesPerRead} ${bytesPerWrite}`,
      );
    }
    assert.match(
      stdout,
      /\nsyscalls +strace -c -f over a [\d.]+ s transfer of .+ \(not the bitrate above\)\nrelay client +[\d.]+k? reads\/GB \([\d.]+ [KM]?Bytes each\) +[\d.]+k? writes\/GB/,
    );
    assert.deepEqual(direct.runs[0].profile, { files: null, top: null, reason: 'no relay to profile', syscalls: null });
    assert.match(stdout, /\nprofile +none: no relay to profile\n/);
  },
);

test(
  '--profile where the profiler cannot write: the case still runs, and says why it has no profile',
  { timeout: 60_000 },
  async () => {
    const blocked = path.join(emptyFolder(), 'a-file');
    writeFileSync(blocked, 'not a folder\n');
    const result = await run({
      cases: [AES],
      engine: 'node',
      duration: 1,
      repeat: 1,
      remeasure: 0,
      ceiling: false,
      ports: await freeRunPorts(),
      profile: blocked,
    });
    const [caseResult] = result.cases;
    assert.equal(caseResult.status, 'ok');
    assert.match(caseResult.runs[0].profile.reason, /^cannot write the CPU profiles to .*a-file\/.*: /);
    assert.equal(existsSync(path.join(blocked, 'x')), false);
  },
);

// A reference row: another program's relays, sampled by perf.
test(
  '--profile on a reference row: perf samples its relays, their busiest functions in the report',
  { timeout: 90_000 },
  async (t) => {
    if (!requirePrograms(t, 'perf', 'ss-server', 'ss-tunnel')) return;
    const cwd = emptyFolder();
    writeFileSync(
      path.join(cwd, 'cases.js'),
      `export default ${JSON.stringify([{ impl: 'shadowsocks-libev', method: 'aes-128-gcm' }])};\n`,
    );
    const { code, stdout, stderr } = await runCli(
      ['--profile', '--engine', 'node', '--duration', '2', '--no-ceiling', ...(await freePortsFlag())],
      { cwd, env: { NO_COLOR: '1' } },
    );
    assert.equal(code, 0, stderr);
    const { profile } = archivedJson(cwd).cases[0].runs[0];
    // perf may be refused here (perf_event_paranoid, a container): then it says so.
    if (profile.reason && /paranoid|not permitted|not supported|denied/i.test(profile.reason)) {
      assert.match(
        stdout,
        new RegExp(`\\nprofile +none: ${profile.reason.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      );
      t.diagnostic(`perf could not sample here: ${profile.reason}`);
      return;
    }
    for (const role of ['client', 'server']) {
      assert.ok(profile.files[role].endsWith(`-relay-${role}.perf.data`));
      assert.ok(existsSync(profile.files[role]));
      assert.ok(
        profile.top[role]?.length > 0 && profile.top[role].every((entry) => entry.function && entry.selfShare > 0),
        `${role}: ${profile.reason}`,
      );
    }
    assert.match(stdout, /\nprofile client +\S+\.perf\.data\n {17} *\d+\.\d%  \S/);
  },
);
