import assert from 'node:assert/strict';
import { symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { emptyFolder, runCli } from './support/cli.js';
import { freePortsFlag, freeRunPorts, portsFlag } from './support/ports.js';
import { assertAllGone } from './support/process-tree.js';

// The built-in traffic engine and reference rows as a person meets them:
// the CLI in a child process, on free ports of each test's own.
const GCM = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];

describe('cipherbench run with the built-in engine', { timeout: 60_000 }, () => {
  test('--engine node: the sink and sender in place of iperf3, the same figures, and the report says so', async () => {
    const ports = await freeRunPorts();
    const {
      code,
      stdout,
      stderr,
      commands,
      descendants: pids,
    } = await runCli([
      'run',
      '--engine',
      'node',
      '--filter',
      '14',
      '--duration',
      '1',
      '--parallel',
      '2',
      '--no-ceiling',
      '--json',
      '--no-archive',
      ...portsFlag(ports),
    ]);
    assert.equal(code, 0, stderr);
    const result = JSON.parse(stdout);
    assert.equal(result.options.engine, 'node');
    const [caseResult] = result.cases;
    assert.equal(caseResult.status, 'ok', caseResult.reason);
    assert.equal(caseResult.parallel, 2);
    assert.ok(caseResult.sender.bits_per_second > 0 && caseResult.receiver.seconds >= 1);
    // The engine waits for every byte: through a lossless pair both ends agree.
    assert.equal(caseResult.receiver.bytes, caseResult.sender.bytes);
    assert.match(
      stderr,
      /^cipherbench:\nversion +0\.1\.0\nengine +node \(built in: cipherbench send and sink\)\ncases +bundled \(.*\/cases\.js\)\n\n/,
    );
    assert.equal(
      commands.filter((line) =>
        new RegExp(`cipherbench\\.js sink --listen 127\\.0\\.0\\.1:${ports.target}$`).test(line),
      ).length,
      1,
    );
    assert.equal(
      commands.filter((line) =>
        new RegExp(` send --connect 127\\.0\\.0\\.1:${ports.client} --duration 1 --parallel 2 --json$`).test(line),
      ).length,
      1,
    );
    // No iperf3 measures; `iperf3 --version` may run, for the environment
    // describes the iperf3 installed even when the built-in engine measures.
    assert.deepEqual(
      commands.filter((line) => /iperf3/.test(line) && !/iperf3 --version$/.test(line)),
      [],
    );
    assertAllGone(pids);
  });

  test('no iperf3 on PATH: auto takes the built-in engine; a peer not installed is SKIPPED, the run exits 0', async () => {
    // PATH holds only node: no iperf3, no ss-server.
    const bin = emptyFolder();
    symlinkSync(process.execPath, path.join(bin, 'node'));
    const cwd = emptyFolder();
    writeFileSync(
      path.join(cwd, 'cases.js'),
      `export default ${JSON.stringify([
        GCM,
        { impl: 'direct' },
        { impl: 'shadowsocks-libev', method: 'aes-256-gcm' },
      ])};\n`,
    );
    const {
      code,
      stdout,
      stderr,
      descendants: pids,
    } = await runCli(
      // No noise floor: beside a loaded suite its spread (cv 53% once) put
      // a note between the chain's bitrate and its ratio; notes are
      // test/unit/report-intervals.test.js's to check.
      ['--duration', '1', '--no-ceiling', '--no-noise-floor', '--relative-to', 'direct', ...(await freePortsFlag())],
      { cwd, env: { PATH: bin } },
    );
    assert.equal(code, 0, stderr);
    assert.match(stdout, /\nengine +node \(built in: cipherbench send and sink\)\n/);
    assert.match(stdout, /\niperf3:\nversion +not found\n/);
    // The chain ranks against the direct row; the direct row is the
    // reference. Which is faster is the machine's to say: a loaded one has
    // measured direct at a third of its idle bitrate.
    assert.match(stdout, /\n\(ranking\):\n\n(DISTURBED: .+\n\n)? [12]: Case [01], .+\n [12]: Case [01], .+\n/);
    // A run other tests' processes disturbed says so before its ratio.
    assert.match(stdout, /\n [12]: Case 1, Bitrate=\[[^\]]+\], (disturbed, )?anchor, direct \(no relay\)\n/);
    assert.match(
      stdout,
      /\n [12]: Case 0, Bitrate=\[[^\]]+\], (disturbed, )?\d+\.\d\d x direct \(no relay\), ss-base \+ /,
    );
    assert.match(
      stdout,
      /\n\(not ranked\):\n\n {4}Case 2, SKIPPED: not installed: ss-server, ss-tunnel not found on PATH; install it with `apt-get install shadowsocks-libev` \(Debian\/Ubuntu\) or `brew install shadowsocks-libev` \(macOS\), shadowsocks-libev aes-256-gcm\n/,
    );
    assertAllGone(pids);
  });
});
