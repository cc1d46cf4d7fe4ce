import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { AEAD_METHODS } from '../lib/crypto/aead-methods.js';
import { STREAM_METHODS } from '../lib/crypto/stream-methods.js';
import {
  BUNDLED_CASES_FILE, formatCaseProblems, loadCasesFile, resolveCasesFile, selectCases, selectReferenceCase, validateCases,
} from '../lib/runner/cases-file.js';
import { splitCommand } from '../lib/runner/split-command.js';

const AES = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
const CHACHA = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'chacha20-ietf-poly1305' } }];

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cipherbench-cases-')));
after(() => rmSync(root, { recursive: true, force: true }));

// A folder with its own package.json decides how Node reads a .js file in it.
function folder(name, type) {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  if (type) writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type }));
  return dir;
}

function file(dir, name, text) {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
}

describe('loading a cases file', () => {
  const moduleDir = folder('module', 'module');
  const commonDir = folder('commonjs', 'commonjs');

  test('ESM export default', async () => {
    assert.deepEqual(await loadCasesFile(file(moduleDir, 'esm.js', `export default ${JSON.stringify([AES])};`)), [AES]);
  });

  test('CommonJS under a type:module package.json is run as CommonJS', async () => {
    const at = file(moduleDir, 'cjs.js', `const base = { name: 'ss-base' };\nmodule.exports = [[base, ${JSON.stringify(AES[1])}]];\n`);
    assert.deepEqual(await loadCasesFile(at), [AES]);
  });

  test('CommonJS that requires a neighbour, under type:module', async () => {
    file(moduleDir, 'shared.cjs', `module.exports = ${JSON.stringify(CHACHA)};`);
    const at = file(moduleDir, 'requires.js', `module.exports = [require('./shared.cjs')];`);
    assert.deepEqual(await loadCasesFile(at), [CHACHA]);
  });

  test('CommonJS under a commonjs package', async () => {
    assert.deepEqual(await loadCasesFile(file(commonDir, 'cjs.js', `module.exports = ${JSON.stringify([AES])};`)), [AES]);
  });

  test('a syntax error names the file and line', async () => {
    const at = file(moduleDir, 'broken.js', 'export default [\n  [{ name: "ss-base" }\n');
    await assert.rejects(loadCasesFile(at), (error) => {
      assert.equal(error.exitCode, 2);
      assert.match(error.message, new RegExp(`^cases file ${at}:\\d+: SyntaxError: `));
      return true;
    });
  });

  test('a file that throws names the file, line and error', async () => {
    const at = file(moduleDir, 'throws.js', 'const x = 1;\nthrow new Error("no cases today");\n');
    await assert.rejects(loadCasesFile(at), (error) => {
      assert.equal(error.exitCode, 2);
      assert.equal(error.message, `cases file ${at}:2 threw while loading: Error: no cases today`);
      return true;
    });
  });

  test('a CommonJS file that throws, under type:module', async () => {
    const at = file(moduleDir, 'cjs-throws.js', 'module.exports = [];\nnull.x;\n');
    await assert.rejects(loadCasesFile(at), /^Error: cases file .*cjs-throws\.js:2 threw while loading: TypeError: /);
  });

  test('a missing file', async () => {
    const at = path.join(root, 'nowhere', 'cases.js');
    await assert.rejects(loadCasesFile(at), { exitCode: 2, message: `cases file ${at} not found` });
  });

  test('an ES module without a default export', async () => {
    await assert.rejects(loadCasesFile(file(moduleDir, 'named.js', 'export const cases = [];')), { exitCode: 2, message: /exports no array/ });
  });
});

describe('which cases file a run uses', () => {
  test('the file named, relative to the folder the person is in', () => {
    assert.equal(resolveCasesFile('my.js', { cwd: root }), path.join(root, 'my.js'));
  });

  test('./cases.js when present, else the bundled one', () => {
    const here = folder('with-cases');
    assert.equal(resolveCasesFile(undefined, { cwd: here }), BUNDLED_CASES_FILE);
    file(here, 'cases.js', 'export default [];');
    assert.equal(resolveCasesFile(undefined, { cwd: here }), path.join(here, 'cases.js'));
  });

  test('the bundled cases.js covers every stream and AEAD method, and is valid', async () => {
    const cases = await loadCasesFile(BUNDLED_CASES_FILE);
    assert.deepEqual(validateCases(cases), []);
    // The reference rows come after the 17 chains, which keep their indexes.
    assert.deepEqual(cases.slice(17), [
      { impl: 'direct' },
      { impl: 'plain' },
      { impl: 'shadowsocks-libev', method: 'aes-256-gcm' },
      { impl: 'shadowsocks-libev', method: 'chacha20-ietf-poly1305' },
      { impl: 'shadowsocks-libev', method: 'aes-256-ctr' },
    ]);
    const methods = (name) => cases.filter((chain) => chain[1]?.name === name).map((chain) => chain[1].params.method);
    assert.deepEqual(methods('ss-stream-cipher').sort(), Object.keys(STREAM_METHODS).sort());
    assert.deepEqual(methods('ss-aead-cipher').sort(), Object.keys(AEAD_METHODS).sort());
  });
});

describe('checking cases', () => {
  test('every problem, with its case index and field', () => {
    const problems = validateCases([
      AES,
      'ss-base',
      [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'x' } }],
      [{ name: 'ss-base' }, { name: 'ss-stream-cipher' }],
    ]);
    assert.deepEqual(problems.map(({ index, field }) => `${index} ${field}`), [
      '1 presets',
      '2 presets[1].params.method',
      '3 presets[1].params.method',
    ]);
    const text = formatCaseProblems('/x/cases.js', problems);
    assert.match(text, /^cases file \/x\/cases\.js has 3 problems:\n/);
    assert.match(text, /\n {2}case 2: presets\[1\]\.params\.method: unknown method "x"; valid: aes-128-gcm, /);
  });

  test('an export that is not an array, or an empty one', () => {
    assert.deepEqual(validateCases({ cases: [] }), [{ index: null, field: 'cases', message: 'must be an array of preset chains, got object' }]);
    assert.equal(validateCases([]).length, 1);
  });
});

describe('reference rows', () => {
  const COMMAND = { impl: 'command', server: 'relay -l {listen} -k {key}', client: 'relay -l {listen} -s {server} -f {forward} -k {key}' };

  test('every valid kind, with the label a report gives it', () => {
    const cases = [
      { impl: 'direct' },
      { impl: 'plain' },
      { impl: 'shadowsocks-libev', method: 'chacha20-ietf-poly1305' },
      { impl: 'shadowsocks-rust', method: 'aes-128-gcm' },
      { impl: 'blinksocks', presets: AES },
      COMMAND,
      { impl: 'command', label: 'gost', server: '/opt/gost -L "ss://aes-256-gcm:{key}@{listen}"', client: '/opt/gost -L tcp://{listen}/{forward} -F ss://aes-256-gcm:{key}@{server}' },
    ];
    assert.deepEqual(validateCases(cases), []);
    assert.deepEqual(selectCases(cases, null).map(({ index, label }) => `${index} ${label}`), [
      '0 direct (no relay)',
      '1 plain (our relays, no cipher)',
      '2 shadowsocks-libev chacha20-ietf-poly1305',
      '3 shadowsocks-rust aes-128-gcm',
      '4 blinksocks aes-256-gcm',
      '5 command relay',
      '6 gost',
    ]);
    assert.deepEqual(selectCases(cases, '4'), [{ index: 4, impl: 'blinksocks', presets: AES, label: 'blinksocks aes-256-gcm' }]);
  });

  test('every problem, by case index and field; unknown implementations list the valid ones', () => {
    const problems = validateCases([
      { impl: 'ss-go' },
      { impl: 'shadowsocks-libev' },
      { impl: 'shadowsocks-libev', method: 'aes-256-gcm-siv' },
      { impl: 'shadowsocks-rust', method: 'aes-256-ctr' },
      { impl: 'direct', method: 'aes-256-gcm', label: '' },
      { impl: 'blinksocks', presets: [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'chacha20-ietf' } }] },
      { impl: 'blinksocks', presets: [{ name: 'shadowsocks' }] },
      { impl: 'command', server: 'relay', client: 'relay {listen} {server} {port}' },
      { impl: 'command', server: '\'relay {listen}', client: '{key} {listen} {server} {forward}' },
      { impl: 'command', server: 'relay {listen}', client: 'relay {listen} {server}' },
      { name: 'ss-base' },
    ]);
    assert.deepEqual(problems.map(({ index, field, message }) => `${index} ${field}: ${message}`), [
      '0 impl: unknown implementation "ss-go"; valid: direct, plain, shadowsocks-libev, shadowsocks-rust, blinksocks, command',
      '1 method: missing; valid: rc4-md5, aes-128-gcm, aes-192-gcm, aes-256-gcm, aes-128-cfb, aes-192-cfb, aes-256-cfb, aes-128-ctr, aes-192-ctr, aes-256-ctr, '
        + 'camellia-128-cfb, camellia-192-cfb, camellia-256-cfb, bf-cfb, chacha20-ietf-poly1305, xchacha20-ietf-poly1305, salsa20, chacha20, chacha20-ietf',
      '2 method: shadowsocks-libev does not support "aes-256-gcm-siv"; valid: rc4-md5, aes-128-gcm, aes-192-gcm, aes-256-gcm, aes-128-cfb, aes-192-cfb, aes-256-cfb, '
        + 'aes-128-ctr, aes-192-ctr, aes-256-ctr, camellia-128-cfb, camellia-192-cfb, camellia-256-cfb, bf-cfb, chacha20-ietf-poly1305, xchacha20-ietf-poly1305, '
        + 'salsa20, chacha20, chacha20-ietf',
      '3 method: shadowsocks-rust does not support "aes-256-ctr"; valid: aes-128-gcm, aes-256-gcm, chacha20-ietf-poly1305, '
        + '2022-blake3-aes-128-gcm, 2022-blake3-aes-256-gcm, 2022-blake3-chacha20-poly1305',
      '4 method: direct takes no field "method"; valid: impl, label',
      '4 label: must be a non-empty string, the name the reports give this row',
      '5 presets[1].params.method: blinksocks 3 runs chacha20-ietf only on Node.js 10',
      '6 presets[0].name: unknown blinksocks preset "shadowsocks"; valid: base-auth, ss-base, ss-stream-cipher, ss-aead-cipher, ssr-auth-aes128-md5, '
        + 'ssr-auth-aes128-sha1, ssr-auth-chain-a, ssr-auth-chain-b, v2ray-vmess, obfs-random-padding, obfs-http, obfs-tls1.2-ticket, aead-random-cipher',
      '7 client: unknown placeholder {port}; valid: {listen}, {server}, {forward}, {key}',
      '7 server: has no {listen}: the server relay must be told where to listen',
      '8 client: the program to run cannot be a placeholder',
      '8 server: unterminated \' at character 1',
      '9 client: neither command has {forward}: one of the relays must be told the target address',
      '10 presets: must be an array of presets, e.g. [{"name":"ss-base"},{"name":"ss-aead-cipher","params":{"method":"aes-256-gcm"}}], or a reference row such as {"impl":"direct"}',
    ]);
  });

  test('--filter and --relative-to match a row by its JSON or its label', () => {
    const cases = [AES, { impl: 'direct' }, { impl: 'shadowsocks-libev', method: 'aes-256-gcm' }, COMMAND];
    assert.deepEqual(selectCases(cases, 'aes-256-gcm').map((c) => c.index), [0, 2]);
    assert.deepEqual(selectCases(cases, 'no relay').map((c) => c.index), [1]);
    const all = selectCases(cases, null);
    assert.equal(selectReferenceCase(cases, all, 'libev aes'), 2);
    assert.equal(selectReferenceCase(cases, all, '1'), 1);
    assert.throws(() => selectReferenceCase(cases, all, 'aes-256-gcm'), {
      exitCode: 2,
      message: '--relative-to "aes-256-gcm" matches 2 cases and must match one: 0 ([{"name":"ss-base"},{"name":"ss-aead-cipher","params":{"method":"aes-256-gcm"}}]), 2 (shadowsocks-libev aes-256-gcm)',
    });
    assert.throws(() => selectReferenceCase(cases, all.slice(2), 'direct'), { exitCode: 2, message: /^--relative-to "direct" matches no case in this run/ });
  });
});

describe('splitting a command line without a shell', () => {
  test('blanks split words; quotes and backslashes keep them together', () => {
    assert.deepEqual(splitCommand('  gost  -L tcp://{listen}/{forward}\t-F x '), { words: ['gost', '-L', 'tcp://{listen}/{forward}', '-F', 'x'] });
    assert.deepEqual(splitCommand(`relay --presets '[{"name":"ss-base"}]' "a \\"b\\" c" '' a\\ b`), {
      words: ['relay', '--presets', '[{"name":"ss-base"}]', 'a "b" c', '', 'a b'],
    });
    assert.deepEqual(splitCommand('x"y"\'z\''), { words: ['xyz'] });
    assert.deepEqual(splitCommand('echo $HOME; rm -rf *'), { words: ['echo', '$HOME;', 'rm', '-rf', '*'] }, 'nothing a shell would expand');
  });

  test('an unterminated quote or escape is an error, not a guess', () => {
    assert.deepEqual(splitCommand('relay "a'), { error: 'unterminated " at character 7' });
    assert.deepEqual(splitCommand('relay \\'), { error: 'a backslash at the end escapes nothing' });
  });
});

describe('--filter', () => {
  const cases = [AES, CHACHA, [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } }]];

  test('none keeps every case with its index', () => {
    assert.deepEqual(selectCases(cases, null).map((c) => c.index), [0, 1, 2]);
  });

  test('a whole number picks that index', () => {
    assert.deepEqual(selectCases(cases, '1'), [{ index: 1, presets: CHACHA }]);
  });

  test('text keeps the cases whose JSON holds it, at their own indexes', () => {
    assert.deepEqual(selectCases(cases, 'aes-256').map((c) => c.index), [0, 2]);
  });

  test('no match, or no such index, is bad input', () => {
    assert.throws(() => selectCases(cases, 'rc4'), { exitCode: 2, message: /matches no case/ });
    assert.throws(() => selectCases(cases, '3'), { exitCode: 2, message: /there is no case 3/ });
  });
});

// The cases files behind docs/performance.md must stay runnable as the
// presets and peers evolve; each one loads and validates, and names the
// reference row its documented --relative-to picks.
test('every cases file in benchmark/ loads and validates', async () => {
  const dir = path.join(path.dirname(BUNDLED_CASES_FILE), 'benchmark');
  const files = [
    ['peers.cases.js', 'shadowsocks-libev'],
    ['aead-gap.cases.js', 'shadowsocks-libev'],
    ['modern.cases.js', 'shadowsocks-rust'],
  ];
  for (const [name, impl] of files) {
    const cases = await loadCasesFile(path.join(dir, name));
    assert.deepEqual(validateCases(cases), [], name);
    assert.ok(cases.some((c) => c.impl === impl && c.method === 'aes-256-gcm'), `${name}: has the ${impl} aes-256-gcm reference row`);
  }
});
