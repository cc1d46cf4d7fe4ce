import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { IMPLS } from '../lib/peers/index.js';
import { CATALOGUE } from '../lib/presets/index.js';

const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));
const PROJECT = fileURLToPath(new URL('..', import.meta.url));

// docs/ is reference: what is true and how it was measured (figure,
// command, date, machine). How it got there is git's history, so no page
// speaks of working sessions, the project's issue numbers or "this
// change". A TLS session (its ticket, id, resumption), V2Ray's session history
// and SIP022's sessions (per session, a session's subkey) are the protocols' own words.
const DIARY = [
  [
    /(?<!\b(?:TLS|per|new)\s)\bsessions?\b(?![-\s]+(?:tickets?|ids?|history|resumption|subkeys?|by its id)\b)/i,
    'a working session',
  ],
  [/\bissues? #?\d+/i, 'an issue number'],
  [/(?:^|[\s(])#\d+\b/, 'an issue number'],
  [/\bthis change\b/i, '"this change"'],
];

const pages = () => [...readdirSync(DOCS).filter((name) => name.endsWith('.md')), path.join('figures', 'README.md')];

function diaryLines(text) {
  return text
    .split('\n')
    .flatMap((line, at) =>
      DIARY.filter(([pattern]) => pattern.test(line)).map(([, what]) => `${at + 1}: ${what}: ${line.trim()}`),
    );
}

test('docs/ pages read as reference: no sessions, issue numbers or "this change"', () => {
  const found = pages().flatMap((page) =>
    diaryLines(readFileSync(path.join(DOCS, page), 'utf8')).map((hit) => `docs/${page}:${hit}`),
  );
  assert.deepEqual(
    found,
    [],
    'say what is true and how it was measured (figure, command, date, machine); the story is in git log',
  );
});

test("the diary check catches the diary and leaves the protocols' words alone", () => {
  for (const line of [
    '## The quiet run (session 4)',
    'Against the targets of issue 6',
    'What this session changed',
    'fixed in #14 and',
    'after this change the relay',
  ]) {
    assert.equal(diaryLines(line).length, 1, line);
  }
  for (const line of [
    'a TLS 1.2 session-ticket handshake',
    "echoes the client's session id",
    "as V2Ray's session history does",
    'carries the first bytes as its session ticket',
    'a replay window per session (SIP022)',
    'resumes no TLS session',
  ]) {
    assert.deepEqual(diaryLines(line), [], line);
  }
});

// ---- No commit hashes in the manual ----

// A commit names how a figure got where it is, which is the notebook's
// (docs/notes/) and git's; the manual gives the figure, the command and
// the date. A hash is a word of 7 to 40 hex digits with a letter and a
// digit in it; a UUID's groups (joined by hyphens) and a quoted value (a
// key, a cookie) are not one. docs/figures/ is the archive of published
// runs: its files are named for the code they measured.
const HASH = /(?<![\w'"-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w'"-])/;

function hashLines(text) {
  return text.split('\n').flatMap((line, at) => (HASH.test(line) ? [`${at + 1}: ${line.trim()}`] : []));
}

test('docs/ pages name no commit: the story and its hashes are in docs/notes/', () => {
  const manual = readdirSync(DOCS).filter((name) => name.endsWith('.md'));
  const found = manual.flatMap((page) =>
    hashLines(readFileSync(path.join(DOCS, page), 'utf8')).map((hit) => `docs/${page}:${hit}`),
  );
  assert.deepEqual(
    found,
    [],
    'give the figure, the command and the date; move the commit-by-commit story to docs/notes/',
  );
});

test('the hash check finds a commit and leaves UUIDs, keys and figures alone', () => {
  for (const line of [
    'code at commit 862308d, load average 3',
    '| 8084f4c | 1 busy loop |',
    'the tree at 19756b1 (checked out)',
    'b831381d8cda48b30811b831381d8cda48b30811',
  ]) {
    assert.equal(hashLines(line).length, 1, line);
  }
  for (const line of [
    '`id` a3482e88-686a-4a58-8126-99c9df64b7bf',
    "cookie: '3ead74ba6d4d405df861db6e973b2703',",
    '1,242 connections and 200 MB',
    'deadbeef',
    'the 2022-blake3-aes-256-gcm method',
    '0x3FFF bytes',
  ]) {
    assert.deepEqual(hashLines(line), [], line);
  }
});

// ---- The README fits hyperfine's size ----

test('README.md is under 2,000 words (wc -w)', () => {
  const README = readFileSync(path.join(PROJECT, 'README.md'), 'utf8');
  const words = README.split(/\s+/).filter(Boolean).length;
  assert.ok(words < 2000, `README.md has ${words} words: move reference to docs/, development to CONTRIBUTING.md`);
});

// The manual (docs/*.md, not the notebook in docs/notes/) is one a person
// reads in an evening: a new figure replaces the old one here, and the
// old one's story goes to docs/notes/.
test('the manual is under 20,000 words (wc -w), each page under 3,000', () => {
  const count = (text) => text.split(/\s+/).filter(Boolean).length;
  const counts = readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => [name, count(readFileSync(path.join(DOCS, name), 'utf8'))]);
  const total = counts.reduce((sum, [, words]) => sum + words, 0);
  assert.ok(total < 20000, `docs/*.md has ${total} words: move measurement stories to docs/notes/`);
  assert.deepEqual(
    counts.filter(([, words]) => words >= 3000),
    [],
    'a page of 3,000 words or more: split it by question, or move its history to docs/notes/',
  );
});

// ---- Every link leads somewhere ----

// GitHub's anchor for a heading: lower case, no punctuation but hyphens
// and underscores, a hyphen for each space; a repeated heading gets -1, -2.
function anchors(markdown) {
  const seen = new Map();
  const found = new Set();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

// A page's links, outside code: [text](target), targets on this disk only.
function localLinks(markdown) {
  const prose = markdown.replace(/^\s*```[\s\S]*?^\s*```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, target]) => target)
    .filter((target) => !/^[a-z][a-z+.-]*:/i.test(target));
}

function brokenLinks(file) {
  const text = readFileSync(file, 'utf8');
  return localLinks(text)
    .flatMap((target) => {
      const [where, anchor] = target.split('#');
      const resolved = where ? path.resolve(path.dirname(file), decodeURIComponent(where)) : file;
      if (!existsSync(resolved)) return [`${target}: no such file`];
      if (anchor && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor))
        return [`${target}: no heading for #${anchor}`];
      return [];
    })
    .map((broken) => `${path.relative(PROJECT, file)}: ${broken}`);
}

const markdownFiles = () => [
  path.join(PROJECT, 'README.md'),
  path.join(PROJECT, 'CONTRIBUTING.md'),
  path.join(PROJECT, 'reports', 'README.md'),
  ...readdirSync(DOCS, { recursive: true })
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join(DOCS, name)),
];

test('every link of the README, CONTRIBUTING.md, reports/README.md and docs/ leads to a file and heading that exist', () => {
  assert.deepEqual(markdownFiles().flatMap(brokenLinks), []);
});

// An archive is named as lib/report/archive.js names it: a placeholder of
// another form (reports/YYYY-MM-DD.json, the time left out) is one a
// person copies and finds nothing under; a section named in quotes is one
// no link check follows.
test('every archive name the docs and messages suggest is the form run writes, and no section is named in quotes', () => {
  const texts = [
    ...markdownFiles().filter((file) => !file.includes(`${path.sep}notes${path.sep}`)),
    path.join(PROJECT, 'lib', 'report', 'result-file.js'),
  ].map((file) => [path.relative(PROJECT, file), readFileSync(file, 'utf8')]);
  // docs/history.md names the older forms, which history still reads.
  const older = new Set(['docs/history.md: YYYY-MM-DD-HHMMSS', 'docs/history.md: YYYY-MM-DD']);
  const wrong = texts.flatMap(([file, text]) =>
    [...text.matchAll(/\bYYYY-MM-DD[-\w]*/g)]
      .map(([name]) => `${file}: ${name}`)
      .filter((entry) => !entry.endsWith(': YYYY-MM-DD-HHMMSSZ') && !older.has(entry)),
  );
  assert.deepEqual(wrong, []);
  const quoted = texts.flatMap(([file, text]) =>
    [...text.matchAll(/README's "([^"]+)"/g)].map(([, section]) => `${file}: "${section}"`),
  );
  assert.deepEqual(quoted, [], 'link the section instead');
});

test('the link check finds a missing file and a missing heading', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cipherbench-links-'));
  try {
    writeFileSync(
      path.join(dir, 'a.md'),
      '# A page\n\n## Read the report\n\n[ok](#read-the-report) [ok](b.md#b-c) [gone](c.md) [no heading](b.md#nowhere) `[code](d.md)`\n',
    );
    writeFileSync(path.join(dir, 'b.md'), '# B: `c`\n');
    assert.deepEqual(
      brokenLinks(path.join(dir, 'a.md')).map((broken) => broken.split(': ').slice(1).join(': ')),
      ['c.md: no such file', 'b.md#nowhere: no heading for #nowhere'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---- The reference lists are the program's ----

// A table's rows in a page, from its header line to the first line that is
// not a row.
function tableRows(markdown, header) {
  const lines = markdown.split('\n');
  const start = lines.findIndex((text) => text.startsWith(header));
  assert.ok(start >= 0, `the table headed ${header}`);
  const rows = [];
  for (const text of lines.slice(start + 2)) {
    if (!text.startsWith('|')) break;
    rows.push(
      text
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}
const codeSpans = (text) => [...text.matchAll(/`([^`]+)`/g)].map(([, span]) => span);
const page = (name) => readFileSync(path.join(DOCS, name), 'utf8');

test('docs/cases.md: the presets table names every preset once, and only presets', () => {
  const named = tableRows(page('cases.md'), '| preset |').flatMap(([cell]) => codeSpans(cell));
  assert.deepEqual([...named].sort(), [...CATALOGUE.names].sort());
});

test('docs/cases.md: the reference rows table names every implementation once, and only those', () => {
  const named = tableRows(page('cases.md'), '| row |').map(([cell]) => /impl: '([^']+)'/.exec(cell)?.[1]);
  assert.deepEqual([...new Set(named)].sort(), [...IMPLS].sort());
  // shadowsocks-libev has two rows: without and with the simple-obfs plugin.
  assert.equal(named.length, IMPLS.length + 1);
});

test('docs/commands.md: the commands table lists every command of cipherbench --help', async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(PROJECT, 'bin', 'cipherbench.js'), '--help'],
    { env: { ...process.env, NO_COLOR: '1' } },
  );
  const commands = [...stdout.split('Commands:')[1].matchAll(/^ {2}([\w-]+)/gm)]
    .map(([, name]) => name)
    .filter((name) => name !== 'help');
  const listed = tableRows(page('commands.md'), '| command |').flatMap(([cell]) =>
    codeSpans(cell).map((span) => span.split(' ')[0]),
  );
  assert.deepEqual([...new Set(listed)].sort(), commands.sort(), 'the Commands table lists every command of --help');
});

test('docs/commands.md: the plumbing table lists every command of cipherbench plumbing, which --help leaves out', async () => {
  const run = (args) =>
    promisify(execFile)(process.execPath, [path.join(PROJECT, 'bin', 'cipherbench.js'), ...args], {
      env: { ...process.env, NO_COLOR: '1' },
    });
  const plumbing = [...(await run(['plumbing'])).stdout.matchAll(/^ {2}([\w-]+)/gm)].map(([, name]) => name);
  const listed = tableRows(page('commands.md'), '| plumbing |').flatMap(([cell]) =>
    codeSpans(cell).map((span) => span.split(' ')[0]),
  );
  assert.deepEqual([...new Set(listed)].sort(), [...plumbing].sort());
  const help = (await run(['--help'])).stdout;
  for (const name of plumbing) assert.doesNotMatch(help, new RegExp(`^  ${name} `, 'm'), `--help leaves out ${name}`);
});
