import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { IMPLS } from '../lib/peers/index.js';
import { PRESETS } from '../lib/presets/index.js';

const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));
const PROJECT = fileURLToPath(new URL('..', import.meta.url));

// docs/ is reference: what is true and how it was measured (figure,
// command, date, machine). How it got there is git's history, so no page
// speaks of working sessions, the project's issue numbers or "this
// change". A TLS session (its ticket, id, resumption), V2Ray's session history
// and SIP022's sessions (per session, a session's subkey) are the protocols' own words.
const DIARY = [
  [/(?<!\b(?:TLS|per|new)\s)\bsessions?\b(?![-\s]+(?:tickets?|ids?|history|resumption|subkeys?|by its id)\b)/i, 'a working session'],
  [/\bissues? #?\d+/i, 'an issue number'],
  [/(?:^|[\s(])#\d+\b/, 'an issue number'],
  [/\bthis change\b/i, '"this change"'],
];

const pages = () => [
  ...readdirSync(DOCS).filter((name) => name.endsWith('.md')),
  path.join('figures', 'README.md'),
];

function diaryLines(text) {
  return text.split('\n').flatMap((line, at) => DIARY.filter(([pattern]) => pattern.test(line)).map(([, what]) => `${at + 1}: ${what}: ${line.trim()}`));
}

test('docs/ pages read as reference: no sessions, issue numbers or "this change"', () => {
  const found = pages().flatMap((page) => diaryLines(readFileSync(path.join(DOCS, page), 'utf8')).map((hit) => `docs/${page}:${hit}`));
  assert.deepEqual(found, [], 'say what is true and how it was measured (figure, command, date, machine); the story is in git log');
});

test('the diary check catches the diary and leaves the protocols\' words alone', () => {
  for (const line of ['## The quiet run (session 4)', 'Against the targets of issue 6', 'What this session changed', 'fixed in #14 and', 'after this change the relay']) {
    assert.equal(diaryLines(line).length, 1, line);
  }
  for (const line of ['a TLS 1.2 session-ticket handshake', 'echoes the client\'s session id', 'as V2Ray\'s session history does', 'carries the first bytes as its session ticket', 'a replay window per session (SIP022)', 'resumes no TLS session']) {
    assert.deepEqual(diaryLines(line), [], line);
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
    rows.push(text.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim()));
  }
  return rows;
}
const codeSpans = (text) => [...text.matchAll(/`([^`]+)`/g)].map(([, span]) => span);
const page = (name) => readFileSync(path.join(DOCS, name), 'utf8');

test('docs/cases.md: the presets table names every preset once, and only presets', () => {
  const named = tableRows(page('cases.md'), '| preset |').flatMap(([cell]) => codeSpans(cell));
  assert.deepEqual([...named].sort(), Object.keys(PRESETS).sort());
});

test('docs/cases.md: the reference rows table names every implementation once, and only those', () => {
  const named = tableRows(page('cases.md'), '| row |').map(([cell]) => /impl: '([^']+)'/.exec(cell)?.[1]);
  assert.deepEqual([...new Set(named)].sort(), [...IMPLS].sort());
  // shadowsocks-libev has two rows: without and with the simple-obfs plugin.
  assert.equal(named.length, IMPLS.length + 1);
});

test('docs/commands.md: the commands table lists every command of cipherbench --help', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(PROJECT, 'bin', 'cipherbench.js'), '--help'], { env: { ...process.env, NO_COLOR: '1' } });
  const commands = [...stdout.split('Commands:')[1].matchAll(/^ {2}([\w-]+)/gm)].map(([, name]) => name).filter((name) => name !== 'help');
  const listed = tableRows(page('commands.md'), '| command |').flatMap(([cell]) => codeSpans(cell).map((span) => span.split(' ')[0]));
  assert.deepEqual([...new Set(listed)].sort(), commands.sort(), 'the Commands table lists every command of --help');
});
