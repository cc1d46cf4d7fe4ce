import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { run } from '../lib/runner/run.js';
import { archivedJson, emptyFolder, runCli } from './support/cli.js';
import { freePortsFlag, freeRunPorts } from './support/ports.js';

const AES = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }];

// The built-in engine, so the test needs nothing but Node.
test('--profile: our relays under the CPU profiler, the .cpuprofile files beside the archive, the busiest functions in the report', { timeout: 90_000 }, async () => {
  const cwd = emptyFolder();
  writeFileSync(path.join(cwd, 'cases.js'), `export default ${JSON.stringify([AES, { impl: 'direct' }])};\n`);
  const { code, stdout, stderr } = await runCli(['--profile', '--engine', 'node', '--duration', '1', '--no-ceiling', ...(await freePortsFlag())], { cwd, env: { NO_COLOR: '1' } });
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
    assert.ok(written.nodes.length > 10 && written.samples.length > 0 && written.timeDeltas.length === written.samples.length);
    assert.ok(profile.top[role].length > 0);
    const shares = profile.top[role].map((entry) => entry.selfShare);
    assert.deepEqual(shares, [...shares].sort((a, b) => b - a), 'busiest first');
    assert.ok(shares.every((share) => share > 0 && share <= 1));
    assert.match(stdout, new RegExp(`\\nprofile ${role} +${file.replaceAll('.', '\\.')}\\n {17} *\\d+\\.\\d%  \\S`));
  }
  assert.deepEqual(direct.runs[0].profile, { files: null, top: null, reason: 'no relay to profile' });
  assert.match(stdout, /\nprofile +none: no relay to profile\n/);
});

test('--profile where the profiler cannot write: the case still runs, and says why it has no profile', { timeout: 60_000 }, async () => {
  const blocked = path.join(emptyFolder(), 'a-file');
  writeFileSync(blocked, 'not a folder\n');
  const result = await run({ cases: [AES], engine: 'node', duration: 1, ceiling: false, ports: await freeRunPorts(), profile: blocked });
  const [caseResult] = result.cases;
  assert.equal(caseResult.status, 'ok');
  assert.match(caseResult.runs[0].profile.reason, /^cannot write the CPU profiles to .*a-file\/.*: /);
  assert.equal(existsSync(path.join(blocked, 'x')), false);
});
