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
    assert.match(
      readme,
      new RegExp(`\`${base}\\.txt\`, \`\\.json\` \\| .*cipherbench|\`${base}\\.txt\`, \`\\.json\` \\| the same`),
      `${base} has its command`,
    );
  }
  for (const doc of readdirSync(path.join(PROJECT, 'docs')).filter((name) => name.endsWith('.md'))) {
    const text = readFileSync(path.join(PROJECT, 'docs', doc), 'utf8');
    assert.doesNotMatch(text, /reports\/\d{4}-\d\d-\d\d/, `${doc} cites a run in reports/, which git ignores`);
    for (const [, cited] of text.matchAll(/\]\((figures\/[^)]+)\)/g)) {
      assert.ok(existsSync(path.join(PROJECT, 'docs', cited)), `${doc} cites ${cited}`);
    }
  }
});

// Test files run side by side (package.json's "test"), so none may listen on
// a port of its choosing: our relays and test servers bind port 0 and read
// the port back, and programs that must be told one get it from
// test/support/ports.js. A literal port in a listen call, a --listen or
// --ports argument, a PORT constant or a started process's `port:` is one
// that two files, or two runs, could both reach for.
test('no test listens on a fixed port', () => {
  // Each pattern captures the port; one above 65535 is bad input a test
  // gives on purpose, as is a host nothing here can bind (256.1.1.1).
  const HOST = String.raw`(?:127\.0\.0\.1|localhost|0\.0\.0\.0|\[::1?\])`;
  const LITERAL_PORTS = [
    [/\.listen\(\s*([1-9]\d*)\s*[,)]/, 'a listen() on a literal port'],
    [new RegExp(`--listen['"\`]?,\\s*['"\`](?:${HOST}:)?([1-9]\\d*)['"\`]`), 'a --listen on a literal port'],
    [new RegExp(`--listen (?:${HOST}:)?([1-9]\\d*)(?![\\w.:\\\\])`), 'a --listen on a literal port'],
    [/--ports['"`]?,\s*['"`](\d+),\d+,\d+['"`]/, 'a --ports of literal ports'],
    [/\b[A-Z_]*PORTS?\s*=\s*[[{]?\s*(?:client:\s*)?([1-9]\d{2,})/, 'a port constant'],
    [/\bstart\w*\(\{[^}]*\b(?:port|serverPort|forwardPort):\s*([1-9]\d{2,})/, 'a process started on a literal port'],
  ];
  const files = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : files(full);
      return entry.name.endsWith('.js') ? [full] : [];
    });
  const found = [];
  for (const file of files(path.join(PROJECT, 'test'))) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, at) => {
        if (/^\s*\/\//.test(line)) return;
        for (const [pattern, what] of LITERAL_PORTS) {
          const [, port] = pattern.exec(line) ?? [];
          if (port && Number(port) <= 65535)
            found.push(`${path.relative(PROJECT, file)}:${at + 1}: ${what}: ${line.trim()}`);
        }
      });
  }
  assert.deepEqual(found, [], 'take a port from the OS (port 0, or test/support/ports.js)');
});
