import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { againstCeilingNote, disturbedNote, rankNote } from '../../lib/report/ranking.js';
import { formatHtmlReport } from '../../lib/report/html-report.js';
import { formatMarkdownReport } from '../../lib/report/markdown-report.js';
import { formatCaseBlock } from '../../lib/report/text-report.js';
import { upgradeResult } from '../../lib/result.js';
import { disturbedReason, retryBudget } from '../../lib/runner/disturbed-runs.js';

// What the ranking says of a rank beyond its distance to the one above:
// that other work disturbed it, or that its own cipher ceiling and that of
// a case of the same chain say the order is the other way.
const chain = (name, method) => [{ name: 'ss-base' }, { name, params: { method } }];
const ranked = (...rows) =>
  rows.map(([presets, bps, ceilingBps, disturbed = null], index) => ({
    index,
    presets,
    receiver: { bits_per_second: bps, low: null },
    ceiling: ceilingBps === null ? null : { encryptBps: ceilingBps, decryptBps: ceilingBps * 1.1 },
    disturbed,
  }));

test('a case of the same chain ranked above one with the faster cipher, both by more than the noise', () => {
  // The issue's inversion: aes-256-cfb over aes-128-cfb, whose cipher is faster.
  const rows = ranked(
    [chain('ss-stream-cipher', 'aes-256-cfb'), 2.21e9, 3.0e9],
    [chain('ss-aead-cipher', 'aes-128-gcm'), 2.0e9, 13e9],
    [chain('ss-stream-cipher', 'aes-128-cfb'), 0.95e9, 4.0e9],
  );
  assert.equal(againstCeilingNote(rows, 2, null), 'cipher faster than #1');
  assert.equal(rankNote(rows, 2), 'cipher faster than #1');
  // Another chain is not held to it: aes-128-gcm's frames differ.
  assert.equal(againstCeilingNote(rows, 1, null), '');
  // Bitrates within the noise floor's cv (here 150 %): nothing is said.
  assert.equal(againstCeilingNote(rows, 2, { cv: 1.5 }), '');
  // Ceilings apart by less than 20 %: too close for a ceiling to order.
  const nearCeilings = ranked(
    [chain('ss-aead-cipher', 'aes-256-gcm'), 6.5e9, 11.9e9],
    [chain('ss-aead-cipher', 'aes-128-gcm'), 6.0e9, 14.0e9],
  );
  assert.equal(againstCeilingNote(nearCeilings, 1, null), '');
  // Ceilings far above the bitrates (CTR at 20-35 Gbit/s, relays at 6):
  // the cipher is too small a part of the work to order them.
  const fastCiphers = ranked(
    [chain('ss-stream-cipher', 'aes-256-ctr'), 6.4e9, 25e9],
    [chain('ss-stream-cipher', 'aes-128-ctr'), 5.2e9, 34e9],
  );
  assert.equal(againstCeilingNote(fastCiphers, 1, null), '');
  // Bitrates apart by less than 5 %: no claim to contradict.
  const close = ranked(
    [chain('ss-stream-cipher', 'aes-256-cfb'), 1.0e9, 3.0e9],
    [chain('ss-stream-cipher', 'aes-128-cfb'), 0.97e9, 4.0e9],
  );
  assert.equal(againstCeilingNote(close, 1, null), '');
  // Without ceilings (--no-ceiling), nothing to judge by.
  assert.equal(
    againstCeilingNote(
      ranked(
        [chain('ss-stream-cipher', 'aes-256-cfb'), 2e9, null],
        [chain('ss-stream-cipher', 'aes-128-cfb'), 1e9, null],
      ),
      1,
      null,
    ),
    '',
  );
});

test('a disturbed case is marked first, with its runs when it has several', () => {
  const rows = ranked(
    [chain('ss-aead-cipher', 'aes-128-gcm'), 2e9, null],
    [chain('ss-aead-cipher', 'aes-256-gcm'), 1e9, null, { runs: 1, of: 1, reason: 'x' }],
    [chain('ss-aead-cipher', 'chacha20-ietf-poly1305'), 0.5e9, null, { runs: 2, of: 3, reason: 'x' }],
  );
  assert.equal(disturbedNote(rows[0]), '');
  assert.equal(rankNote(rows, 1), 'disturbed');
  assert.equal(rankNote(rows, 2), 'disturbed in 2 of 3 runs');
});

test('a run is disturbed past 10 % of the CPU to other processes or 5 % stolen; the retries are bounded', () => {
  assert.equal(disturbedReason({ disturbance: { others: 0.1, steal: 0.05 } }), null);
  assert.equal(
    disturbedReason({ disturbance: { others: 0.34, steal: 0 } }),
    "other processes took 34% of the machine's CPU (limit 10%)",
  );
  assert.equal(
    disturbedReason({ disturbance: { others: 0, steal: 0.07 } }),
    "the hypervisor took 7% of the machine's CPU for other guests (limit 5%)",
  );
  // Without /proc, or a run that measured nothing: nothing to judge.
  assert.equal(disturbedReason({ disturbance: { others: null, steal: null } }), null);
  assert.equal(disturbedReason({ status: 'failed' }), null);
  // A quarter of the planned runs, at least the retries of one run; none when asked for none.
  assert.deepEqual([retryBudget(3, 2), retryBudget(22, 2), retryBudget(66, 2), retryBudget(22, 0)], [2, 6, 17, 0]);
});

// A ceiling measured in 3 rounds: each direction's median with its min and
// max, as lib/ceiling/chain-ceilings.js records it.
const roundsCeiling = (encrypt, decrypt, receiverBps) => ({
  encryptBps: encrypt[1],
  decryptBps: decrypt[1],
  size: 65536,
  rounds: 3,
  encryptMinBps: encrypt[0],
  encryptMaxBps: encrypt[2],
  decryptMinBps: decrypt[0],
  decryptMaxBps: decrypt[2],
  efficiency: receiverBps / Math.min(encrypt[1], decrypt[1]),
});

test("a ceiling carries its rounds' spread; one whose rounds disagree marks the efficiency set against it", () => {
  const result = upgradeResult(
    JSON.parse(readFileSync(new URL('../fixtures/result-v2.json', import.meta.url), 'utf8')),
  );
  const [steady, unsteady] = result.cases.filter((caseResult) => caseResult.ceiling);
  steady.ceiling = roundsCeiling([30e9, 31.5e9, 33e9], [33e9, 34e9, 35e9], steady.receiver.bits_per_second);
  // The issue's aes-128-ctr: 9.56 Gbit/s in one round, 20.3 in another.
  unsteady.ceiling = roundsCeiling([9.56e9, 19.8e9, 20.3e9], [21e9, 22e9, 23e9], unsteady.receiver.bits_per_second);

  assert.match(
    formatCaseBlock(steady),
    /^ceiling {10}encrypt 31\.5 Gbits\/sec \(30\.0\.\.33\.0\) {2}decrypt 34\.0 Gbits\/sec \(33\.0\.\.35\.0\) {2}\(64\.0 KBytes reads, one core, 3 rounds\) {2}efficiency [\d.]+%$/m,
  );
  assert.doesNotMatch(formatCaseBlock(steady), /unsteady/);
  const block = formatCaseBlock(unsteady);
  assert.match(block, /\(64\.0 KBytes reads, one core, 3 rounds\) {2}efficiency [\d.]+% of an unsteady ceiling$/m);
  assert.match(
    block,
    /^ {17}unsteady: its 3 rounds of encrypt spread 9\.56\.\.20\.3 Gbits\/sec, more than 50% of their median, so the efficiency may be off by as much$/m,
  );

  // The Efficiency column marks it where the figure is.
  const markdown = formatMarkdownReport(result);
  assert.equal((markdown.match(/\| [\d.]+% \*\*unsteady ceiling\*\* \|/g) ?? []).length, 1);
  assert.match(
    formatHtmlReport(result),
    /[\d.]+% <span class="marker"><span class="mark">unsteady ceiling<\/span><\/span>/,
  );
  assert.match(
    markdown,
    / \*\*unsteady ceiling\*\*: the cipher ceiling's rounds spread by more than 50% of their median/,
  );
  assert.match(
    formatHtmlReport(result),
    / <span class="marker">unsteady ceiling<\/span>: the cipher ceiling&#39;s rounds spread/,
  );
  // A result from before rounds: no spread, no mark.
  assert.doesNotMatch(
    formatMarkdownReport(
      upgradeResult(JSON.parse(readFileSync(new URL('../fixtures/result-v2.json', import.meta.url), 'utf8'))),
    ),
    /unsteady/,
  );
});

test('an unsteady ceiling orders nothing: no cipher faster than # from it', () => {
  const rows = ranked(
    [chain('ss-stream-cipher', 'aes-256-cfb'), 2.21e9, 3.0e9],
    [chain('ss-stream-cipher', 'aes-128-cfb'), 0.95e9, 4.0e9],
  );
  assert.equal(againstCeilingNote(rows, 1, null), 'cipher faster than #1');
  rows[1].ceiling = roundsCeiling([2.0e9, 4.0e9, 4.2e9], [4.4e9, 4.4e9, 4.4e9], 0.95e9);
  assert.equal(againstCeilingNote(rows, 1, null), '');
});
