import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { casesSource, loadCasesFile } from '../lib/runner/cases-file.js';
import { requirePrograms } from './support/programs.js';
import { casesFolders } from './support/cases-folders.js';

// What the cases file learns from another program: the line of a syntax
// error from `node --check`, and whether the shipped file was edited from
// git. The rest of its tests start no process: test/unit/runner-cases-file.test.js.
const AES = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
const CHACHA = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'chacha20-ietf-poly1305' } }];

const { folder, file } = casesFolders('cipherbench-cases-programs-');

test('a syntax error names the file and line', async () => {
  const at = file(folder('module', 'module'), 'broken.js', 'export default [\n  [{ name: "ss-base" }\n');
  await assert.rejects(loadCasesFile(at), (error) => {
    assert.equal(error.exitCode, 2);
    assert.match(error.message, new RegExp(`^cases file ${at}:\\d+: SyntaxError: `));
    return true;
  });
});

test('a syntax error in an ES module outside any package (no package.json) names its line', async () => {
  const loose = folder('loose');
  const at = file(
    loose,
    'cases.js',
    `export default [\n  ${JSON.stringify(AES)},\n  [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } ],\n];\n`,
  );
  await assert.rejects(loadCasesFile(at), (error) => {
    assert.equal(error.exitCode, 2);
    assert.equal(error.message, `cases file ${at}:3: SyntaxError: Unexpected token ']'`);
    return true;
  });
});

test("the shipped cases file is 'bundled' only while unedited; any other file is a 'file'", async (t) => {
  if (!requirePrograms(t, 'git')) return;
  // A clone of its own: the shipped file committed, then edited.
  const clone = folder('clone');
  const shipped = file(clone, 'cases.js', `export default ${JSON.stringify([AES])};\n`);
  assert.equal(
    await casesSource(shipped, { bundled: shipped }),
    'bundled',
    'an installed package has no .git: as published',
  );
  const git = (...args) =>
    execFileSync('git', ['-C', clone, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { stdio: 'ignore' });
  git('init', '-q');
  git('add', 'cases.js');
  git('commit', '-qm', 'cases');
  assert.equal(await casesSource(shipped, { bundled: shipped }), 'bundled');
  writeFileSync(shipped, `export default ${JSON.stringify([AES, CHACHA])};\n`);
  assert.equal(await casesSource(shipped, { bundled: shipped }), 'file', 'edited after the clone');
  assert.equal(await casesSource(file(clone, 'mine.js', 'export default [];\n'), { bundled: shipped }), 'file');
  assert.equal(await casesSource(null), null, 'cases given in code');
});
