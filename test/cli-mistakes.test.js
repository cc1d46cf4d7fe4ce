import assert from 'node:assert/strict';
import { cpSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { test } from 'node:test';
import { emptyFolder, runCli } from './support/cli.js';
import { freePortsFlag } from './support/ports.js';

// What a first-time user types wrong, and the one line that says what to do.

test('a mistyped command is not taken for a cases file: the nearest command is suggested, exit 2', async () => {
  for (const [args, message] of [
    [
      ['cipher'],
      "cipherbench: 'cipher' is neither a command nor a cases file here: did you mean 'cipherbench ciphers'?\n",
    ],
    [
      ['presset'],
      "cipherbench: 'presset' is neither a command nor a cases file here: did you mean 'cipherbench presets'?\n",
    ],
    [
      ['run', 'comapre'],
      "cipherbench: 'comapre' is neither a command nor a cases file here: did you mean 'cipherbench compare'?\n",
    ],
    [
      ['xyzzy'],
      /^cipherbench: 'xyzzy' is neither a command nor a cases file here: the commands are run, .*presets, ciphers, .*report/,
    ],
  ]) {
    const { code, stdout, stderr } = await runCli(args);
    assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
    assert.equal(stdout, '');
    if (typeof message === 'string') assert.equal(stderr, message);
    else assert.match(stderr, message);
  }
});

test('a file by that name is still a cases file', async () => {
  const cwd = emptyFolder();
  writeFileSync(path.join(cwd, 'cipher'), 'export default 42;\n');
  const { code, stderr } = await runCli(['cipher'], { cwd });
  assert.equal(code, 2);
  assert.match(stderr, /^cipherbench: cases file .*\/cipher has 1 problem:\n {2}cases must be an array/);
});

test('a chain listed twice runs twice, with a warning in the header', async () => {
  const cwd = emptyFolder();
  const chain = JSON.stringify([{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }]);
  writeFileSync(path.join(cwd, 'cases.json'), `[${chain}, ${chain}]`);
  const { code, stdout, stderr } = await runCli(
    [
      'run',
      'cases.json',
      '--engine',
      'node',
      '--duration',
      '1',
      '--no-ceiling',
      '--no-archive',
      ...(await freePortsFlag()),
    ],
    { cwd, env: { NO_COLOR: '1' } },
  );
  assert.equal(code, 0, stderr);
  assert.match(
    stdout,
    /\niperf3:\n(.+\n)+\nwarning: cases 0 and 1 are the same chain, so it runs twice; remove one, or use --repeat to measure a case more than once\n\nrunning 2 cases\.\.\./,
  );
  assert.match(stdout, /^cases +.*\/cases\.json$/m);
});

test("commander's own usage errors come in the tool's one-line form, exit 2", async () => {
  for (const [args, message] of [
    [['--durations', '1'], "cipherbench: unknown option '--durations': did you mean --duration? (see --help)\n"],
    [['run', '--ports'], "cipherbench: option '--ports <client,server,target>' argument missing (see --help)\n"],
    [
      ['presets', 'ss-base'],
      "cipherbench: too many arguments for 'presets'. Expected 0 arguments but got 1 (see --help)\n",
    ],
    [['compare'], "cipherbench: missing required argument 'old' (see --help)\n"],
  ]) {
    const { code, stdout, stderr } = await runCli(args);
    assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
    assert.equal(stdout, '');
    assert.equal(stderr, message, args.join(' '));
  }
});

test('a mistyped preset or method names the nearest valid one', async () => {
  const cwd = emptyFolder();
  const cases = [
    [{ name: 'ss-bse' }],
    [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gmc' } }],
  ];
  writeFileSync(path.join(cwd, 'cases.json'), JSON.stringify(cases));
  const run = await runCli(['run', 'cases.json', '--no-archive', ...(await freePortsFlag())], { cwd });
  assert.equal(run.code, 2, run.stderr);
  assert.match(
    run.stderr,
    /\n {2}case 0: presets\[0\]\.name: unknown preset "ss-bse" \(did you mean "ss-base"\?\); valid: ss-base, /,
  );
  assert.match(
    run.stderr,
    /\n {2}case 1: presets\[1\]\.params\.method: unknown method "aes-256-gmc" \(did you mean "aes-256-gcm"\?\); valid: /,
  );
  const ciphers = await runCli(['ciphers', '--methods', 'chacha20-ietf-poly13O5']);
  assert.equal(ciphers.code, 2, ciphers.stderr);
  assert.match(
    ciphers.stderr,
    /^cipherbench: --methods: unknown chacha20-ietf-poly13O5 \(did you mean "chacha20-ietf-poly1305"\?\); valid: /,
  );
  assert.equal(ciphers.stderr.split('\n').length, 2, 'one line');
});

test('a reference row gets the same "did you mean", and a misspelt key of a preset is named as unknown', async () => {
  const cwd = emptyFolder();
  const cases = [
    { impl: 'shadowsocks-libv', method: 'aes-256-gcm' },
    { impl: 'shadowsocks-libev', method: 'aes-256-gmc' },
    { impl: 'shadowsocks-rust', methd: 'aes-256-gcm' },
    [{ name: 'ss-base' }, { name: 'ss-aead-cipher', param: { method: 'aes-256-gcm' } }],
    // A cipher another implementation has was not mistyped: no guess.
    { impl: 'shadowsocks-rust', method: 'aes-256-ctr' },
  ];
  writeFileSync(path.join(cwd, 'cases.json'), JSON.stringify(cases));
  const { code, stdout, stderr } = await runCli(['run', 'cases.json', '--no-archive', ...(await freePortsFlag())], {
    cwd,
  });
  assert.equal(code, 2, stderr);
  assert.equal(stdout, '');
  const lines = stderr.split('\n');
  assert.match(
    stderr,
    /\n {2}case 0: impl: unknown implementation "shadowsocks-libv" \(did you mean "shadowsocks-libev"\?\); valid: direct, /,
  );
  assert.match(
    stderr,
    /\n {2}case 1: method: shadowsocks-libev does not support "aes-256-gmc" \(did you mean "aes-256-gcm"\?\); valid: /,
  );
  assert.match(
    stderr,
    /\n {2}case 2: methd: shadowsocks-rust takes no field "methd" \(did you mean "method"\?\); valid: /,
  );
  assert.ok(
    lines.includes(
      '  case 3: presets[1].param: a preset takes no key "param" (did you mean "params"?); valid: name, params',
    ),
    stderr,
  );
  assert.ok(!lines.some((line) => line.startsWith('  case 3: presets[1].params')), 'not reported as params it lacks');
  assert.match(stderr, /\n {2}case 4: method: shadowsocks-rust does not support "aes-256-ctr"; valid: /);
});

test('run before `npm ci`: one line that says to run it, exit 1, no stack', async () => {
  // The command line and its library as a fresh clone holds them: no
  // node_modules anywhere above.
  const clone = emptyFolder();
  for (const part of ['bin', 'lib', 'package.json'])
    cpSync(fileURLToPath(new URL(`../${part}`, import.meta.url)), path.join(clone, part), { recursive: true });
  const { code, stdout, stderr } = await runCli(['--help'], {
    cwd: clone,
    commandArgs: [path.join(clone, 'bin', 'cipherbench.js')],
  });
  assert.equal(code, 1, stderr);
  assert.equal(stdout, '');
  assert.equal(stderr, `cipherbench: the package commander it needs is not installed: run \`npm ci\` in ${clone}\n`);
});

test('tls-site with a certificate file that is not there: one line naming the flag, exit 2', async () => {
  const { code, stdout, stderr } = await runCli([
    'tls-site',
    '--listen',
    '127.0.0.1:0',
    '--cert',
    '/nonexistent/cert.pem',
    '--key',
    '/nonexistent/key.pem',
  ]);
  assert.equal(code, 2);
  assert.equal(stdout, '');
  assert.equal(stderr, 'cipherbench: --cert /nonexistent/cert.pem: cannot read it (ENOENT); give a PEM file\n');
});
