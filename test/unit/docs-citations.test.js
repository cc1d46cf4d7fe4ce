import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const PROJECT = fileURLToPath(new URL('../..', import.meta.url));

// Code cites the page, and often the section, that says why it is so:
// (docs/statistics.md, "What disturbed a run"). A page cut down or a
// section moved to docs/notes/ must take its citations with it, or the
// reader of the code is sent to a heading that is not there.
const FOLDERS = ['lib', 'bin', 'scripts', 'benchmark', 'test', '.ci'];
const SKIP = new Set(['node_modules', 'peers', 'fixtures']);
// Paths of other projects' repositories that a comment names as such.
const ELSEWHERE = new Set(['docs/protocol.md']);

function sourceFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIP.has(entry.name) ? [] : sourceFiles(file);
    return /\.(js|mjs|lua|sh)$|^run$/.test(entry.name) ? [file] : [];
  });
}

// A comment's lines joined into one, so a heading wrapped across two
// comment lines reads as written.
const joined = (text) => text.replace(/\n[ \t]*(?:\/\/|\*|--|#)?[ \t]*/g, ' ');

// Each citation: the page, and the quoted headings after it (none, one,
// or "A" and "B").
function citations(text) {
  const found = [];
  for (const match of joined(text).matchAll(
    /\bdocs\/([\w/-]+\.md)(?:'s)?((?:,\s*|\s*\(\s*)(?:["'][^"'\n]{2,80}["'](?:\s*(?:and|,)\s*)?)+)?/g,
  )) {
    const headings = match[2] ? [...match[2].matchAll(/["']([^"']+)["']/g)].map(([, heading]) => heading) : [];
    found.push({ page: `docs/${match[1]}`, headings });
  }
  return found;
}

const plain = (text) =>
  text
    .replace(/[`*_]/g, '')
    .replace(/[.:,;]+$/, '')
    .toLowerCase();

function headingsOf(file) {
  let fenced = false;
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line) => {
      if (/^\s*```/.test(line)) fenced = !fenced;
      const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*$/.exec(line);
      return heading ? [plain(heading[1])] : [];
    });
}

function unresolved(file) {
  return citations(readFileSync(file, 'utf8')).flatMap(({ page, headings }) => {
    if (ELSEWHERE.has(page)) return [];
    const where = `${path.relative(PROJECT, file)}: ${page}`;
    const target = path.join(PROJECT, page);
    if (!existsSync(target)) return [`${where}: no such page`];
    const known = headingsOf(target);
    return headings
      .filter((heading) => !known.some((title) => title.includes(plain(heading))))
      .map((heading) => `${where}: no heading "${heading}"`);
  });
}

test('every docs/ page and section the code cites exists', () => {
  // This file's own examples are not citations.
  const files = FOLDERS.flatMap((folder) => sourceFiles(path.join(PROJECT, folder))).filter(
    (file) => file !== fileURLToPath(import.meta.url),
  );
  assert.ok(files.length > 100, `read ${files.length} files`);
  assert.deepEqual(files.flatMap(unresolved), [], 'cite the page or the docs/notes/ file that now holds the section');
});

test('the citation reader finds a page, one heading, two, and a heading wrapped over two comment lines', () => {
  assert.deepEqual(citations('// the relays (docs/statistics.md, "What disturbed a run"). Returns'), [
    { page: 'docs/statistics.md', headings: ['What disturbed a run'] },
  ]);
  assert.deepEqual(citations(' * docs/result.md, "A case" and "Reference rows": a case'), [
    { page: 'docs/result.md', headings: ['A case', 'Reference rows'] },
  ]);
  assert.deepEqual(citations("(docs/statistics.md, 'Warm-up')."), [
    { page: 'docs/statistics.md', headings: ['Warm-up'] },
  ]);
  assert.deepEqual(citations('// the load (docs/requests.md, "The\n// engines"), chosen'), [
    { page: 'docs/requests.md', headings: ['The engines'] },
  ]);
  assert.deepEqual(citations("target (docs/requests.md)'; new URL('../docs/result.md', import.meta.url)"), [
    { page: 'docs/requests.md', headings: [] },
    { page: 'docs/result.md', headings: [] },
  ]);
});
