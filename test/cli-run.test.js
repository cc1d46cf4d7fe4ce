import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { descendants } from '../benchmark/programs/support/proc-stats.js';
import { assertAllGone, occupyIperf3Server } from './support/process-tree.js';
import { archivedJson, commandLine, emptyFolder, runCli, waitFor } from './support/cli.js';
import { freePorts, freePortsFlag, freeRunPorts, portsFlag } from './support/ports.js';
import { CLI } from './support/processes.js';
import { requirePrograms } from './support/programs.js';

// The CLI as a person runs it: a child process, real relays and iperf3, on
// free ports of each test's own (test/support/ports.js), so a benchmark on
// the defaults is left alone and test files run side by side.
const ANSI = /\x1b\[/;
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const chain = (method) => [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }];
const THREE = [chain('aes-128-gcm'), chain('aes-256-gcm'), chain('chacha20-ietf-poly1305')];

describe('cipherbench run', { timeout: 120_000 }, () => {
  test('with no command runs ./cases.js (CommonJS) and prints header, cases, ranking; archives', async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const cwd = emptyFolder();
    writeFileSync(path.join(cwd, 'cases.js'), `module.exports = ${JSON.stringify(THREE)};\n`);
    const {
      code,
      stdout,
      stderr,
      descendants: pids,
      commands,
    } = await runCli(['--duration', '1', '--filter', '2', ...(await freePortsFlag())], { cwd });
    assert.equal(code, 0, stderr);
    assert.match(
      stdout,
      new RegExp(
        `^cipherbench:\\nversion +0\\.1\\.0\\nengine +iperf3\\ncases +${escapeRegExp(path.join(cwd, 'cases.js'))}\\n\\nOperating System:\\n`,
      ),
    );
    assert.match(
      stdout,
      /\n\nrunning 1 case\.\.\.\n\n------------ Case 2 ---------------------\nss-base \+ ss-aead-cipher\(chacha20-ietf-poly1305\)\nInterval {9}Transfer {5}Bitrate\n0\.00-\d\.\d\d {3}sec {2}.+ sender\n0\.00-\d\.\d\d {3}sec {2}.+ receiver\n/,
    );
    // Cost per relay and the chain's ceiling under the bitrates, and no warning.
    const archived = archivedJson(cwd);
    assert.match(
      stdout,
      / receiver\ncost {13}cpu s  cpu s\/GB +peak RSS\nrelay client +\d+\.\d\d +\d+\.\d\d +[\d.]+ MBytes\nrelay server +\d+\.\d\d +\d+\.\d\d +[\d.]+ MBytes\nceiling {10}encrypt .+ efficiency \d+\.\d%( of an unsteady ceiling\n {17}unsteady: .+)?\n-{41}\n\n\(ranking\):\n\n(DISTURBED: .+\n\n)? 1: Case 2, Bitrate=\[/,
    );
    assert.match(stdout, /\n\nDone in \d+\.\d\ds\.\n$/);
    assert.doesNotMatch(stdout, ANSI, 'no colour off a terminal');
    assert.match(
      stderr,
      /^\[ceiling 1\/1\] chacha20-ietf-poly1305 \.\.\.\n\[run 1\/1\] Case 2  chacha20-ietf-poly1305 \.\.\.\nreport archived: .*reports\/\d{4}-\d\d-\d\d-\d{6}Z\.txt and .*reports\/\d{4}-\d\d-\d\d-\d{6}Z\.json\n$/,
    );
    assert.equal(archived.options.casesFile, path.join(cwd, 'cases.js'));
    assert.equal(archived.complete, true);
    assert.deepEqual(
      archived.cases.map((c) => [c.index, c.status]),
      [[2, 'ok']],
    );
    assert.equal(commands.filter((line) => / relay (server|client) /.test(line)).length, 2);
    assert.equal(commands.filter((line) => /^\S*iperf3 -(s|c) /.test(line)).length, 2);
    assertAllGone(pids);
  });

  test('--json: the JSON report on stdout, the text on stderr; --no-archive writes nothing', async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const { code, stdout, stderr, cwd } = await runCli([
      'run',
      '--duration',
      '1',
      '--filter',
      '14',
      '--json',
      '--no-archive',
      '--no-ceiling',
      ...(await freePortsFlag()),
    ]);
    assert.equal(code, 0, stderr);
    const result = JSON.parse(stdout);
    assert.equal(
      result.options.casesFile,
      path.resolve(CLI, '../../cases.js'),
      'the bundled cases.js, as the folder has none',
    );
    assert.deepEqual(
      result.cases.map((c) => [c.index, c.status]),
      [[14, 'ok']],
    );
    assert.match(stderr, /^cipherbench:\n/);
    assert.match(stderr, /\(ranking\):\n\n(DISTURBED: .+\n\n)? 1: Case 14, /);
    assert.deepEqual(readdirSync(cwd), []);
  });

  test('a failed case is reported FAILED with its reason, archived, and exits 1', async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    let occupying;
    const ports = await freeRunPorts();
    const {
      code,
      stdout,
      stderr,
      cwd,
      descendants: pids,
    } = await runCli(['run', '--duration', '1', '--filter', '14', '--no-ceiling', ...portsFlag(ports)], {
      during: () => {
        occupying = occupyIperf3Server(ports.target, { timeoutMs: 20_000 });
      },
    });
    (await occupying).destroy();
    assert.equal(code, 1, stderr);
    assert.match(
      stdout,
      /------------ Case 14 ---------------------\n.*\nFAILED: iperf3: the server is busy running a test\. try again later\n-{41}\n/,
    );
    assert.match(stdout, /\(not ranked\):\n\n {4}Case 14, FAILED: iperf3: the server is busy/);
    assert.equal(archivedJson(cwd).cases[0].status, 'failed');
    assertAllGone(pids);
  });

  test('an archive folder that cannot be made: one line before anything runs, exit 2', async () => {
    const cwd = emptyFolder();
    writeFileSync(path.join(cwd, 'not-a-folder'), '');
    const out = path.join(cwd, 'not-a-folder', 'reports');
    const {
      code,
      stdout,
      stderr,
      descendants: pids,
    } = await runCli(['run', '--out', out, '--json', 'missing/r.json', '--no-ceiling', ...(await freePortsFlag())], {
      cwd,
    });
    assert.equal(code, 2, stderr);
    assert.equal(stdout, '');
    assert.equal(
      stderr,
      `cipherbench: --json missing/r.json: the folder missing does not exist; --out ${out}: ${path.join(cwd, 'not-a-folder')} is not a folder (or --no-archive)\n`,
    );
    assert.deepEqual(pids, [], 'no process started');
  });

  test('an archive the disk refuses at the end: the message names the folder, the JSON goes to stdout and a temporary file, exit 1', async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const cwd = emptyFolder();
    const out = path.join(cwd, 'reports');
    mkdirSync(out);
    // Writable when checked; a file by the time the run ends.
    const { code, stdout, stderr } = await runCli(
      [
        'run',
        '--duration',
        '1',
        '--filter',
        'aes-128-gcm',
        '--out',
        path.join(out, 'inner'),
        '--no-ceiling',
        ...(await freePortsFlag()),
      ],
      {
        cwd,
        during: async (child, output) => {
          await waitFor(() => output().stderr, /\[run 1\/1\]/);
          rmSync(out, { recursive: true });
          writeFileSync(out, '');
        },
      },
    );
    assert.equal(code, 1, stderr);
    const said = new RegExp(
      `\\ncipherbench: cannot archive the report in ${escapeRegExp(path.join(out, 'inner'))}: .*ENOTDIR.*; the JSON report follows on stdout\\ncipherbench: the JSON report is kept in (\\S+)\\n$`,
    ).exec(stderr);
    assert.ok(said, stderr);
    const json = JSON.parse(stdout.slice(stdout.indexOf('\n{\n') + 1));
    assert.deepEqual(
      json.cases.map((c) => [c.index, c.status]),
      [[12, 'ok']],
    );
    assert.match(stdout, /\(ranking\):/);
    t.after(() => rmSync(said[1], { force: true }));
    assert.deepEqual(JSON.parse(readFileSync(said[1], 'utf8')), json, 'the temporary file holds the same report');
  });

  test('--json FILE --no-archive whose folder goes away during the run: the result is kept in a temporary file it names, exit 1', async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const cwd = emptyFolder();
    const folder = path.join(cwd, 'results');
    mkdirSync(folder);
    const { code, stderr } = await runCli(
      [
        'run',
        '--duration',
        '1',
        '--filter',
        'aes-128-gcm',
        '--json',
        path.join(folder, 'r.json'),
        '--no-archive',
        '--no-ceiling',
        ...(await freePortsFlag()),
      ],
      {
        cwd,
        during: async (child, output) => {
          await waitFor(() => output().stderr, /\[run 1\/1\]/);
          rmSync(folder, { recursive: true });
        },
      },
    );
    assert.equal(code, 1, stderr);
    assert.match(stderr, /\ncipherbench: the JSON report was not written: cannot write .*r\.json: ENOENT/);
    const kept = /\ncipherbench: the JSON report is kept in (\S+)\n$/.exec(stderr);
    assert.ok(kept, stderr);
    t.after(() => rmSync(kept[1], { force: true }));
    assert.deepEqual(
      JSON.parse(readFileSync(kept[1], 'utf8')).cases.map((c) => [c.index, c.status]),
      [[12, 'ok']],
    );
  });

  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ]) {
    test(`${signal} mid-run stops every child, archives the partial report and exits ${code}`, async (t) => {
      if (!requirePrograms(t, 'iperf3')) return;
      const cwd = emptyFolder();
      writeFileSync(path.join(cwd, 'cases.js'), `export default ${JSON.stringify(THREE)};\n`);
      // SIGINT goes to the whole process group, as Ctrl-C in a terminal
      // does, in the first case's measurement; SIGTERM to the CLI alone, as
      // kill does, in the second's.
      const at = signal === 'SIGINT' ? /\[run 1\/3\]/ : /\[run 2\/3\]/;
      // Seed 5 runs three cases in the file's order.
      const result = await runCli(['--duration', '3', '--no-ceiling', '--seed', '5', ...(await freePortsFlag())], {
        cwd,
        during: async (child, output) => {
          await waitFor(() => output().stderr, at);
          await delay(1000);
          process.kill(signal === 'SIGINT' ? -child.pid : child.pid, signal);
        },
      });
      assert.equal(result.code, code, result.stderr);
      assert.match(result.stdout, /INCOMPLETE: interrupted by SIG/);
      const archived = archivedJson(cwd);
      assert.equal(archived.complete, false);
      assert.equal(archived.interrupted, signal);
      const expected = signal === 'SIGINT' ? ['skipped', 'skipped', 'skipped'] : ['ok', 'skipped', 'skipped'];
      assert.deepEqual(
        archived.cases.map((c) => c.status),
        expected,
        `cases' reasons: ${JSON.stringify(archived.cases.map((c) => c.reason))}; stderr:\n${result.stderr}`,
      );
      assert.ok(archived.cases.filter((c) => c.status === 'skipped').every((c) => c.reason === 'run interrupted'));
      assert.ok(result.descendants.length >= 4, `saw the children: ${result.descendants}`);
      assertAllGone(result.descendants);
    });
  }

  // Ctrl-C signals the whole group, and the relays' deaths may be read
  // before the CLI runs its own handler: the case under way was stopped,
  // not failed. Here the relays hear it 100 ms before the CLI does.
  test('relays dying of a Ctrl-C the CLI hears a moment later: the case is skipped, not failed', async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const cwd = emptyFolder();
    writeFileSync(path.join(cwd, 'cases.js'), `export default ${JSON.stringify(THREE)};\n`);
    let relays = [];
    const result = await runCli(['--duration', '3', '--no-ceiling', '--seed', '5', ...(await freePortsFlag())], {
      cwd,
      during: async (child, output) => {
        await waitFor(() => output().stderr, /\[run 1\/3\]/);
        await delay(1000);
        relays = descendants(child.pid).filter((pid) => / relay (client|server) /.test(commandLine(pid)));
        for (const pid of relays) process.kill(pid, 'SIGINT');
        await delay(100);
        process.kill(child.pid, 'SIGINT');
      },
    });
    assert.equal(relays.length, 2, `found the relay pair: ${result.commands.join('; ')}`);
    assert.equal(result.code, 130, result.stderr);
    const archived = archivedJson(cwd);
    assert.deepEqual(
      archived.cases.map((c) => [c.status, c.reason]),
      THREE.map(() => ['skipped', 'run interrupted']),
    );
    assertAllGone(result.descendants);
  });

  test('colour on a terminal, none with NO_COLOR or --no-color', async (t) => {
    if (!requirePrograms(t, 'iperf3', 'script')) return;
    // script(1) gives the CLI a pseudo-terminal, as a person's shell would.
    const onTerminal = async (extra, env) => {
      const command = [
        process.execPath,
        CLI,
        'run',
        '--duration',
        '1',
        '--repeat',
        '1',
        '--filter',
        'aes-128-gcm',
        '--no-archive',
        '--no-ceiling',
        ...(await freePortsFlag()),
        ...extra,
      ]
        .map((word) => `'${word}'`)
        .join(' ');
      return runCli([], { command: 'script', commandArgs: ['-qec', command, '/dev/null'], env });
    };
    const colored = await onTerminal([], { NO_COLOR: '' });
    assert.equal(colored.code, 0, colored.stdout);
    assert.match(colored.stdout, ANSI);
    for (const [extra, env] of [
      [[], { NO_COLOR: '1' }],
      [['--no-color'], { NO_COLOR: '' }],
    ]) {
      const plain = await onTerminal(extra, env);
      assert.equal(plain.code, 0, plain.stdout);
      // The live progress line rewrites itself with \r and erase-line; the
      // report itself carries no colour.
      assert.doesNotMatch(plain.stdout.replaceAll('\r\x1b[2K', ''), ANSI, `${extra} ${JSON.stringify(env)}`);
    }
  });
});

describe('cipherbench run refuses bad input before any process starts, exit 2', () => {
  test('--engine iperf3 without iperf3: says how to install it', async () => {
    const bin = emptyFolder();
    symlinkSync(process.execPath, path.join(bin, 'node'));
    const { code, stdout, stderr, commands } = await runCli(
      ['run', '--engine', 'iperf3', '--no-archive', ...(await freePortsFlag())],
      { env: { PATH: bin } },
    );
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.equal(
      stderr,
      'cipherbench: iperf3 is not installed (not found on PATH): install it with `sudo apt-get install iperf3` (Debian/Ubuntu) or `brew install iperf3` (macOS), or run with --engine node\n',
    );
    assert.deepEqual(commands, []);
  });

  test('a cases file with problems: every one, by case index and field', async () => {
    const cwd = emptyFolder();
    writeFileSync(
      path.join(cwd, 'mine.js'),
      `export default ${JSON.stringify([chain('aes-256-gcm'), chain('x'), { name: 'ss-base' }])};\n`,
    );
    const { code, stdout, stderr } = await runCli(['run', 'mine.js', ...(await freePortsFlag())], { cwd });
    assert.equal(code, 2);
    assert.equal(stdout, '');
    assert.match(
      stderr,
      new RegExp(
        `^cipherbench: cases file ${path.join(cwd, 'mine.js')} has 2 problems:\n` +
          '  case 1: presets\\[1\\]\\.params\\.method: unknown method "x"; valid: aes-128-gcm, [^\\n]+\n' +
          '  case 2: presets: must be an array of presets, [^\\n]+\n$',
      ),
    );
  });

  test('a cases file that does not load: one line, no stack', async () => {
    const cwd = emptyFolder();
    writeFileSync(path.join(cwd, 'cases.js'), 'module.exports = [\n');
    const { code, stderr } = await runCli(['--no-archive', ...(await freePortsFlag())], { cwd });
    assert.equal(code, 2);
    assert.match(stderr, /^cipherbench: cases file .*cases\.js:\d+: SyntaxError: Unexpected end of input\n$/);
  });

  test('a port already taken: names the port and the pid holding it', async () => {
    const holder = net.createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => holder.once('listening', resolve));
    const taken = holder.address().port;
    try {
      const [client, target] = await freePorts(2);
      const { code, stderr, commands } = await runCli([
        'run',
        '--filter',
        '0',
        ...portsFlag({ client, server: taken, target }),
      ]);
      assert.equal(code, 2);
      assert.match(
        stderr,
        new RegExp(
          `^cipherbench: port ${taken} \\(relay server\\) is already in use by pid ${process.pid} \\(node\\): stop it, or pick free ports with --ports CLIENT,SERVER,TARGET\n$`,
        ),
      );
      // ss may run to name the holder; no relay or iperf3 starts.
      assert.deepEqual(
        commands.filter((line) => / relay (server|client) |iperf3/.test(line)),
        [],
      );
    } finally {
      holder.close();
    }
  });

  test('bad flags', async () => {
    for (const [args, message] of [
      [['--duration', '0'], /^cipherbench: duration must be a whole number of seconds, 1 or more; got "0"\n$/],
      [['--ports', '1,2'], /^cipherbench: --ports must be three port numbers/],
      [['--filter', 'no-such-cipher'], /^cipherbench: --filter "no-such-cipher" matches no case/],
      [['--engine', 'netperf'], /^cipherbench: engine must be one of auto, iperf3, node, wrk, got "netperf"\n$/],
      [['--relative-to', 'no-such-case'], /^cipherbench: --relative-to "no-such-case" matches no case in this run/],
      // The bundled set has a shadowsocks-libev row for three methods.
      [
        ['--relative-to', 'libev'],
        /^cipherbench: --relative-to "libev" matches 3 cases and must match one: 19 \(shadowsocks-libev aes-256-gcm\), 20 \(shadowsocks-libev chacha20-ietf-poly1305\), 21 \(shadowsocks-libev aes-256-ctr\)\n$/,
      ],
      [
        ['--filter', 'gcm', '--relative-to', 'direct'],
        /^cipherbench: --relative-to "direct" matches no case in this run/,
      ],
    ]) {
      const { code, stderr } = await runCli(['run', ...args]);
      assert.equal(code, 2, args.join(' '));
      assert.match(stderr, message);
    }
  });
});
