import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'node:test';

const run = promisify(execFile);
const PROJECT = fileURLToPath(new URL('..', import.meta.url));
const git = async (...args) => (await run('git', args, { cwd: PROJECT })).stdout;

// A fresh clone's first run must be its own YYYY-MM-DD, not the eighth of
// the developers' day: reports/ ships empty but for its README.
test('reports/ ships only its README, and git ignores a run archived there', async () => {
  assert.deepEqual((await git('ls-files', 'reports')).trim().split('\n'), ['reports/README.md']);
  const ignored = await git('check-ignore', '--no-index', 'reports/2026-11-23.json', 'reports/2026-11-23-2.txt');
  assert.deepEqual(ignored.trim().split('\n'), ['reports/2026-11-23.json', 'reports/2026-11-23-2.txt']);
});

// Published figures live in docs/figures/, each with the command that made
// it, and every one the docs cite is there.
test('docs/figures holds the cited reports, each pair listed with its command', () => {
  const figures = path.join(PROJECT, 'docs', 'figures');
  const readme = readFileSync(path.join(figures, 'README.md'), 'utf8');
  const reports = readdirSync(figures).filter((name) => name.endsWith('.json'));
  assert.ok(reports.length > 0);
  for (const name of reports) {
    const base = name.replace(/\.json$/, '');
    assert.ok(existsSync(path.join(figures, `${base}.txt`)), `${base}.txt beside ${name}`);
    assert.match(readme, new RegExp(`\`${base}\\.txt\`, \`\\.json\` \\| .*cipherbench|\`${base}\\.txt\`, \`\\.json\` \\| the same`), `${base} has its command`);
  }
  for (const doc of readdirSync(path.join(PROJECT, 'docs')).filter((name) => name.endsWith('.md'))) {
    const text = readFileSync(path.join(PROJECT, 'docs', doc), 'utf8');
    assert.doesNotMatch(text, /reports\/\d{4}-\d\d-\d\d/, `${doc} cites a run in reports/, which git ignores`);
    for (const [, cited] of text.matchAll(/\]\((figures\/[^)]+)\)/g)) {
      assert.ok(existsSync(path.join(PROJECT, 'docs', cited)), `${doc} cites ${cited}`);
    }
  }
});
