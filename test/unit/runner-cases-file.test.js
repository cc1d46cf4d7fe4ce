import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { AEAD_METHODS } from '../../lib/crypto/aead-methods.js';
import { STREAM_METHODS } from '../../lib/crypto/stream-methods.js';
import { chainLabel } from '../../lib/chain/label.js';
import { IMPLS } from '../../lib/peers/index.js';
import {
  BUNDLED_CASES_FILE,
  duplicateWarnings,
  formatCaseProblems,
  loadCasesFile,
  resolveCasesFile,
  selectCases,
  selectAnchorCase,
  validateCases,
} from '../../lib/runner/cases-file.js';
import { splitCommand } from '../../lib/process/split-command.js';
import { casesFolders } from '../support/cases-folders.js';

const AES = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
const CHACHA = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'chacha20-ietf-poly1305' } }];

const { root, folder, file } = casesFolders('cipherbench-cases-');

describe('loading a cases file', () => {
  const moduleDir = folder('module', 'module');
  const commonDir = folder('commonjs', 'commonjs');

  test('ESM export default', async () => {
    assert.deepEqual(await loadCasesFile(file(moduleDir, 'esm.js', `export default ${JSON.stringify([AES])};`)), [AES]);
  });

  test('CommonJS under a type:module package.json is run as CommonJS', async () => {
    const at = file(
      moduleDir,
      'cjs.js',
      `const base = { name: 'ss-base' };\nmodule.exports = [[base, ${JSON.stringify(AES[1])}]];\n`,
    );
    assert.deepEqual(await loadCasesFile(at), [AES]);
  });

  test('CommonJS that requires a neighbour, under type:module', async () => {
    file(moduleDir, 'shared.cjs', `module.exports = ${JSON.stringify(CHACHA)};`);
    const at = file(moduleDir, 'requires.js', `module.exports = [require('./shared.cjs')];`);
    assert.deepEqual(await loadCasesFile(at), [CHACHA]);
  });

  test('CommonJS under a commonjs package', async () => {
    assert.deepEqual(await loadCasesFile(file(commonDir, 'cjs.js', `module.exports = ${JSON.stringify([AES])};`)), [
      AES,
    ]);
  });

  test('a .json cases file is read as JSON; a mistake in it names its line', async () => {
    const loose = folder('json');
    assert.deepEqual(await loadCasesFile(file(loose, 'cases.json', JSON.stringify([AES, CHACHA], null, 2))), [
      AES,
      CHACHA,
    ]);
    const at = file(loose, 'broken.json', `[\n  ${JSON.stringify(AES)}\n  ${JSON.stringify(CHACHA)}\n]\n`);
    await assert.rejects(loadCasesFile(at), (error) => {
      assert.equal(error.exitCode, 2);
      assert.match(error.message, new RegExp(`^cases file ${at}:3: not valid JSON: `));
      assert.equal(error.message.split('\n').length, 1);
      return true;
    });
    // A trailing comma: V8 quotes the text around it, newlines and all.
    const trailing = file(loose, 'trailing.json', `[\n  ${JSON.stringify(AES)},\n]\n`);
    await assert.rejects(loadCasesFile(trailing), (error) => {
      assert.equal(error.message, `cases file ${trailing}:3: not valid JSON: Unexpected token ']'`);
      return true;
    });
  });

  test('[a] [b] with the comma forgotten: case N is undefined, and the file is refused', async () => {
    // JavaScript reads it as [a][b]: chain a indexed by chain b, undefined.
    const at = file(
      folder('comma', 'module'),
      'cases.js',
      `export default [\n  ${JSON.stringify(AES)}\n  ${JSON.stringify(CHACHA)},\n  ${JSON.stringify(AES)},\n];\n`,
    );
    const cases = await loadCasesFile(at);
    assert.equal(cases.length, 2);
    const problems = validateCases(cases);
    assert.deepEqual(
      problems.map(({ index, field }) => [index, field]),
      [[0, 'case']],
    );
    assert.equal(
      formatCaseProblems(at, problems),
      `cases file ${at} has 1 problem:\n  case 0 is undefined: a comma missing between two chains? ([...] [...] reads as one chain indexed by the next)`,
    );
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
    await assert.rejects(loadCasesFile(file(moduleDir, 'named.js', 'export const cases = [];')), {
      exitCode: 2,
      message: /exports no array/,
    });
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
    // blinksocks' own methods, which no other Shadowsocks implementation
    // here speaks, are in benchmark/cases/blinksocks.cases.js and `cipherbench ciphers`.
    const shadowsocksMethods = (table) =>
      Object.keys(table)
        .filter((method) => !['rc4-md5-6', 'none', 'chacha20-poly1305'].includes(method))
        .sort();
    assert.deepEqual(methods('ss-stream-cipher').sort(), shadowsocksMethods(STREAM_METHODS));
    assert.deepEqual(methods('ss-aead-cipher').sort(), shadowsocksMethods(AEAD_METHODS));
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
    assert.deepEqual(
      problems.map(({ index, field }) => `${index} ${field}`),
      ['1 presets', '2 presets[1].params.method', '3 presets[1].params.method'],
    );
    const text = formatCaseProblems('/x/cases.js', problems);
    assert.match(text, /^cases file \/x\/cases\.js has 3 problems:\n/);
    assert.match(text, /\n {2}case 2: presets\[1\]\.params\.method: unknown method "x"; valid: aes-128-gcm, /);
  });

  test('an export that is not an array, or an empty one', () => {
    assert.deepEqual(validateCases({ cases: [] }), [
      { index: null, field: 'cases', message: 'must be an array of preset chains, got object' },
    ]);
    assert.equal(validateCases([]).length, 1);
  });
});

describe('reference rows', () => {
  const COMMAND = {
    impl: 'command',
    server: 'relay -l {listen} -k {key}',
    client: 'relay -l {listen} -s {server} -f {forward} -k {key}',
  };

  test('every valid kind, with the label a report gives it', () => {
    const cases = [
      { impl: 'direct' },
      { impl: 'plain' },
      { impl: 'shadowsocks-libev', method: 'chacha20-ietf-poly1305' },
      { impl: 'shadowsocks-rust', method: 'aes-128-gcm' },
      { impl: 'blinksocks', presets: AES },
      COMMAND,
      {
        impl: 'command',
        label: 'gost',
        server: '/opt/gost -L "ss://aes-256-gcm:{key}@{listen}"',
        client: '/opt/gost -L tcp://{listen}/{forward} -F ss://aes-256-gcm:{key}@{server}',
      },
    ];
    assert.deepEqual(validateCases(cases), []);
    assert.deepEqual(
      selectCases(cases, null).map(({ index, label }) => `${index} ${label}`),
      [
        '0 direct (no relay)',
        '1 plain (our relays, no cipher)',
        '2 shadowsocks-libev chacha20-ietf-poly1305',
        '3 shadowsocks-rust aes-128-gcm',
        '4 blinksocks aes-256-gcm',
        '5 command relay',
        '6 gost',
      ],
    );
    assert.deepEqual(selectCases(cases, '4'), [
      { index: 4, impl: 'blinksocks', presets: AES, label: 'blinksocks aes-256-gcm' },
    ]);
  });

  test('every problem, by case index and field; unknown implementations list the valid ones', () => {
    const problems = validateCases([
      { impl: 'ss-go' },
      { impl: 'shadowsocks-libev' },
      { impl: 'shadowsocks-libev', method: 'aes-256-gcm-siv' },
      { impl: 'shadowsocks-rust', method: 'aes-256-ctr' },
      { impl: 'direct', method: 'aes-256-gcm', label: '' },
      { impl: 'blinksocks', presets: [{ name: 'ss-base' }, { name: 'aead-random-cipher' }] },
      { impl: 'blinksocks', presets: [{ name: 'shadowsocks' }] },
      { impl: 'command', server: 'relay', client: 'relay {listen} {server} {port}' },
      { impl: 'command', server: "'relay {listen}", client: '{key} {listen} {server} {forward}' },
      { impl: 'command', server: 'relay {listen}', client: 'relay {listen} {server}' },
      { name: 'ss-base' },
    ]);
    assert.deepEqual(
      problems.map(({ index, field, message }) => `${index} ${field}: ${message}`),
      [
        `0 impl: unknown implementation "ss-go"; valid: ${IMPLS.join(', ')}`,
        '1 method: missing; valid: rc4-md5, aes-128-gcm, aes-192-gcm, aes-256-gcm, aes-128-cfb, aes-192-cfb, aes-256-cfb, aes-128-ctr, aes-192-ctr, aes-256-ctr, ' +
          'camellia-128-cfb, camellia-192-cfb, camellia-256-cfb, bf-cfb, chacha20-ietf-poly1305, xchacha20-ietf-poly1305, salsa20, chacha20, chacha20-ietf',
        '2 method: shadowsocks-libev does not support "aes-256-gcm-siv" (did you mean "aes-256-gcm"?); valid: rc4-md5, aes-128-gcm, aes-192-gcm, aes-256-gcm, aes-128-cfb, aes-192-cfb, aes-256-cfb, ' +
          'aes-128-ctr, aes-192-ctr, aes-256-ctr, camellia-128-cfb, camellia-192-cfb, camellia-256-cfb, bf-cfb, chacha20-ietf-poly1305, xchacha20-ietf-poly1305, ' +
          'salsa20, chacha20, chacha20-ietf',
        '3 method: shadowsocks-rust does not support "aes-256-ctr"; valid: aes-128-gcm, aes-256-gcm, chacha20-ietf-poly1305, ' +
          '2022-blake3-aes-128-gcm, 2022-blake3-aes-256-gcm, 2022-blake3-chacha20-poly1305',
        '4 method: direct takes no field "method"; valid: impl, label',
        '4 label: must be a non-empty string, the name the reports give this row',
        '5 presets[1].params.method: missing: blinksocks starts without it and fails at the first connection',
        '6 presets[0].name: unknown blinksocks preset "shadowsocks"; valid: base-auth, ss-base, ss-stream-cipher, ss-aead-cipher, ssr-auth-aes128-md5, ' +
          'ssr-auth-aes128-sha1, ssr-auth-chain-a, ssr-auth-chain-b, v2ray-vmess, obfs-random-padding, obfs-http, obfs-tls1.2-ticket, aead-random-cipher',
        '7 client: unknown placeholder {port}; valid: {listen}, {server}, {forward}, {key}',
        '7 server: has no {listen}: the server relay must be told where to listen',
        '8 client: the program to run cannot be a placeholder',
        "8 server: unterminated ' at character 1",
        '9 client: neither command has {forward}: one of the relays must be told the target address',
        '10 presets: must be an array of presets, e.g. [{"name":"ss-base"},{"name":"ss-aead-cipher","params":{"method":"aes-256-gcm"}}], or a reference row such as {"impl":"direct"}',
      ],
    );
  });

  test('--filter and --relative-to match a row by its JSON or its label', () => {
    const cases = [AES, { impl: 'direct' }, { impl: 'shadowsocks-libev', method: 'aes-256-gcm' }, COMMAND];
    assert.deepEqual(
      selectCases(cases, 'aes-256-gcm').map((c) => c.index),
      [0, 2],
    );
    assert.deepEqual(
      selectCases(cases, 'no relay').map((c) => c.index),
      [1],
    );
    const all = selectCases(cases, null);
    assert.equal(selectAnchorCase(cases, all, 'libev aes'), 2);
    assert.equal(selectAnchorCase(cases, all, '1'), 1);
    // The number as the report prints it, counted from 0 like '1' above.
    assert.equal(selectAnchorCase(cases, all, 'Case 2'), 2);
    assert.equal(selectAnchorCase(cases, all, 'Test Case 2'), 2, 'as reports before version 7 named it');
    assert.equal(selectAnchorCase(cases, all, 'case 3'), 3);
    assert.deepEqual(
      selectCases(cases, 'test case 1').map((c) => c.index),
      [1],
    );
    assert.throws(() => selectAnchorCase(cases, all, 'aes-256-gcm'), {
      exitCode: 2,
      message:
        '--relative-to "aes-256-gcm" matches 2 cases and must match one: 0 ([{"name":"ss-base"},{"name":"ss-aead-cipher","params":{"method":"aes-256-gcm"}}]), 2 (shadowsocks-libev aes-256-gcm)',
    });
    // A row's whole label names it even where it begins other rows' labels.
    const xray = [
      { impl: 'xray', protocol: 'shadowsocks', method: 'aes-256-gcm', transport: 'ws' },
      { impl: 'xray', protocol: 'shadowsocks', method: 'aes-256-gcm' },
      { impl: 'xray', protocol: 'shadowsocks', method: 'aes-256-gcm', transport: 'grpc' },
    ];
    assert.equal(selectAnchorCase(xray, selectCases(xray, null), 'xray shadowsocks aes-256-gcm'), 1);
    assert.throws(() => selectAnchorCase(xray, selectCases(xray, null), 'xray shadowsocks'), {
      exitCode: 2,
      message: /matches 3 cases and must match one/,
    });
    assert.throws(() => selectAnchorCase(cases, all.slice(2), 'direct'), {
      exitCode: 2,
      message: /^--relative-to "direct" matches no case in this run/,
    });
  });
});

describe('splitting a command line without a shell', () => {
  test('blanks split words; quotes and backslashes keep them together', () => {
    assert.deepEqual(splitCommand('  gost  -L tcp://{listen}/{forward}\t-F x '), {
      words: ['gost', '-L', 'tcp://{listen}/{forward}', '-F', 'x'],
    });
    assert.deepEqual(splitCommand(`relay --presets '[{"name":"ss-base"}]' "a \\"b\\" c" '' a\\ b`), {
      words: ['relay', '--presets', '[{"name":"ss-base"}]', 'a "b" c', '', 'a b'],
    });
    assert.deepEqual(splitCommand('x"y"\'z\''), { words: ['xyz'] });
    assert.deepEqual(
      splitCommand('echo $HOME; rm -rf *'),
      { words: ['echo', '$HOME;', 'rm', '-rf', '*'] },
      'nothing a shell would expand',
    );
  });

  test('an unterminated quote or escape is an error, not a guess', () => {
    assert.deepEqual(splitCommand('relay "a'), { error: 'unterminated " at character 7' });
    assert.deepEqual(splitCommand('relay \\'), { error: 'a backslash at the end escapes nothing' });
  });
});

test('a case listed twice is a warning naming both, not an error', () => {
  const selected = selectCases(
    [AES, CHACHA, AES, { impl: 'direct' }, { impl: 'direct' }, { impl: 'direct', label: 'again' }],
    null,
  );
  assert.deepEqual(duplicateWarnings(selected), [
    'cases 0 and 2 are the same chain, so it runs twice; remove one, or use --repeat to measure a case more than once',
    'cases 3 and 4 are the same row, so it runs twice; remove one, or use --repeat to measure a case more than once',
  ]);
  assert.deepEqual(duplicateWarnings(selectCases([AES, CHACHA], null)), []);
});

describe('--filter', () => {
  const cases = [AES, CHACHA, [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } }]];

  test('none keeps every case with its index', () => {
    assert.deepEqual(
      selectCases(cases, null).map((c) => c.index),
      [0, 1, 2],
    );
  });

  test('a whole number picks that index', () => {
    assert.deepEqual(selectCases(cases, '1'), [{ index: 1, presets: CHACHA }]);
  });

  test('text keeps the cases whose JSON holds it, at their own indexes', () => {
    assert.deepEqual(
      selectCases(cases, 'aes-256').map((c) => c.index),
      [0, 2],
    );
  });

  test('no match, or no such index, is bad input', () => {
    assert.throws(() => selectCases(cases, 'rc4'), { exitCode: 2, message: /matches no case/ });
    assert.throws(() => selectCases(cases, '3'), { exitCode: 2, message: /there is no case 3/ });
  });
});

// The cases files behind docs/performance.md must stay runnable as the
// presets and peers evolve; each one loads and validates, and names the
// reference row its documented --relative-to picks.
test('every cases file in benchmark/cases/ loads and validates', async () => {
  const dir = path.join(path.dirname(BUNDLED_CASES_FILE), 'benchmark', 'cases');
  const files = [
    ['peers.cases.js', 'shadowsocks-libev'],
    ['aead-gap.cases.js', 'shadowsocks-libev'],
    ['modern.cases.js', 'shadowsocks-rust'],
    ['young-generation.cases.js', 'shadowsocks-libev'],
  ];
  for (const [name, impl] of files) {
    const cases = await loadCasesFile(path.join(dir, name));
    assert.deepEqual(validateCases(cases), [], name);
    assert.ok(
      cases.some((c) => c.impl === impl && c.method === 'aes-256-gcm'),
      `${name}: has the ${impl} aes-256-gcm reference row`,
    );
  }
});

// blinksocks v3.3.0's benchmark/cases.js, its 33 chains in order.
const VMESS_ID = 'a3482e88-686a-4a58-8126-99c9df64b7bf';
const BLINKSOCKS_CASES = [
  /* 0 */ [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } }],
  /* 1 */ [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-256-cfb' } }],
  /* 2 */ [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'rc4-md5' } }],
  /* 3 */ [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'camellia-256-cfb' } }],
  /* 4 */ [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'chacha20-ietf' } }],
  /* 5 */ [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }],
  /* 6 */ [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'chacha20-poly1305' } }],
  /* 7 */ [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'chacha20-ietf-poly1305' } }],
  /* 8 */ [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'xchacha20-ietf-poly1305' } }],
  /* 9 */ [
    { name: 'ss-base' },
    { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } },
    { name: 'obfs-tls1.2-ticket', params: { sni: ['test.com'] } },
  ],
  /* 10 */ [
    { name: 'ss-base' },
    { name: 'obfs-random-padding' },
    { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } },
  ],
  /* 11 */ [
    { name: 'ss-base' },
    { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } },
    { name: 'obfs-tls1.2-ticket', params: { sni: ['test.com'] } },
  ],
  /* 12 */ [
    { name: 'ss-base' },
    { name: 'obfs-random-padding' },
    { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } },
  ],
  /* 13 */ [
    { name: 'ss-base' },
    { name: 'ssr-auth-aes128-md5' },
    { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } },
  ],
  /* 14 */ [
    { name: 'ss-base' },
    { name: 'ssr-auth-aes128-sha1' },
    { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } },
  ],
  /* 15 */ [
    { name: 'ss-base' },
    { name: 'ssr-auth-chain-a' },
    { name: 'ss-stream-cipher', params: { method: 'none' } },
  ],
  /* 16 */ [
    { name: 'ss-base' },
    { name: 'ssr-auth-chain-b' },
    { name: 'ss-stream-cipher', params: { method: 'none' } },
  ],
  /* 17 */ [
    { name: 'ss-base' },
    { name: 'ssr-auth-aes128-sha1' },
    { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } },
    { name: 'obfs-tls1.2-ticket', params: { sni: ['test.com'] } },
  ],
  /* 18 */ [
    { name: 'ss-base' },
    { name: 'ssr-auth-chain-a' },
    { name: 'ss-stream-cipher', params: { method: 'none' } },
    { name: 'obfs-tls1.2-ticket', params: { sni: ['test.com'] } },
  ],
  /* 19 */ [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'none' } }],
  /* 20 */ [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'aes-128-gcm' } }],
  /* 21 */ [{ name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'chacha20-poly1305' } }],
  /* 22 */ [
    { name: 'v2ray-vmess', params: { id: VMESS_ID, security: 'aes-128-gcm' } },
    { name: 'obfs-tls1.2-ticket', params: { sni: ['test.com'] } },
  ],
  /* 23 */ [{ name: 'base-auth' }, { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } }],
  /* 24 */ [{ name: 'base-auth' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }],
  /* 25 */ [{ name: 'base-auth' }, { name: 'aead-random-cipher', params: { method: 'aes-256-gcm' } }],
  /* 26 */ [{ name: 'ss-base' }, { name: 'aead-random-cipher', params: { method: 'aes-256-gcm' } }],
  /* 27 */ [
    { name: 'base-auth' },
    { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } },
    { name: 'obfs-tls1.2-ticket', params: { sni: ['test.com'] } },
  ],
  /* 28 */ [
    { name: 'base-auth' },
    { name: 'obfs-random-padding' },
    { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } },
  ],
  /* 29 */ [
    { name: 'base-auth' },
    { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } },
    { name: 'obfs-tls1.2-ticket', params: { sni: ['test.com'] } },
  ],
  /* 30 */ [
    { name: 'base-auth' },
    { name: 'obfs-random-padding' },
    { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } },
  ],
  /* 31 */ [
    { name: 'base-auth' },
    { name: 'aead-random-cipher', params: { method: 'aes-256-gcm' } },
    { name: 'obfs-tls1.2-ticket', params: { sni: ['test.com'] } },
  ],
  /* 32 */ [
    { name: 'ss-base' },
    { name: 'aead-random-cipher', params: { method: 'aes-256-gcm' } },
    { name: 'obfs-tls1.2-ticket', params: { sni: ['test.com'] } },
  ],
];
// The same chain whatever order its params were written in.
const canonical = (presets) =>
  JSON.stringify(presets.map(({ name, params }) => [name, Object.entries(params ?? {}).sort()]));

describe('benchmark/cases/blinksocks.cases.js', async () => {
  const cases = await loadCasesFile(
    path.join(path.dirname(BUNDLED_CASES_FILE), 'benchmark', 'cases', 'blinksocks.cases.js'),
  );
  const chains = cases.filter((entry) => Array.isArray(entry));

  test("blinksocks' cases, all of them in its order, each followed by the same chain through blinksocks", () => {
    assert.equal(cases.length, 2 * chains.length);
    chains.forEach((presets, i) =>
      assert.deepEqual(cases[2 * i + 1], { impl: 'blinksocks', presets }, `row after ${chainLabel(presets)}`),
    );
    assert.deepEqual(chains.map(canonical), BLINKSOCKS_CASES.map(canonical));
  });

  for (const [i, presets] of chains.entries()) {
    test(`${chainLabel(presets)} and its blinksocks row validate`, () => {
      assert.deepEqual(validateCases([presets, cases[2 * i + 1]]), []);
    });
  }
});

test('an impl that names an Object property (toString, __proto__) is an unknown implementation, not a crash', () => {
  const problems = validateCases([{ impl: 'toString' }, { impl: '__proto__' }, { impl: 'constructor' }]);
  assert.deepEqual(
    problems.map(({ index, message }) => `${index} ${message.split(';')[0]}`),
    [
      '0 unknown implementation "toString"',
      '1 unknown implementation "__proto__"',
      '2 unknown implementation "constructor"',
    ],
  );
});
