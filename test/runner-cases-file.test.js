import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { AEAD_METHODS } from '../lib/crypto/aead-methods.js';
import { STREAM_METHODS } from '../lib/crypto/stream-methods.js';
import {
  BUNDLED_CASES_FILE, formatCaseProblems, loadCasesFile, resolveCasesFile, selectCases, validateCases,
} from '../lib/runner/cases-file.js';

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
