import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));

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
