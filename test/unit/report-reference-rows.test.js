import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compareResults } from '../../lib/report/comparison.js';
import { formatComparison } from '../../lib/report/comparison-text.js';
import { formatHtmlReport } from '../../lib/report/html-report.js';
import { formatMarkdownReport } from '../../lib/report/markdown-report.js';
import { formatCaseBlock, formatHeader, formatRanking } from '../../lib/report/text-report.js';

// Reference rows and --relative-to in every report, from one result built
// here: a chain, direct, a shadowsocks-libev row (the anchor) and a
// shadowsocks-rust row skipped as not installed, measured by the built-in
// engine.
const GCM = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
const side = (bitsPerSecond) => ({
  bytes: (bitsPerSecond * 3) / 8,
  seconds: 3,
  bits_per_second: bitsPerSecond,
  min: bitsPerSecond,
  max: bitsPerSecond,
  cv: 0,
});
const measured = (identity, bitsPerSecond, ratio) => ({
  ...identity,
  status: 'ok',
  reason: null,
  direction: 'forward',
  parallel: 1,
  runs: [
    {
      round: 0,
      status: 'ok',
      reason: null,
      sender: side(bitsPerSecond),
      receiver: side(bitsPerSecond),
      wallSeconds: 4,
      cost: null,
    },
  ],
  sender: side(bitsPerSecond),
  receiver: side(bitsPerSecond),
  unstable: false,
  wallSeconds: 4,
  cost: null,
  latency: null,
  ceiling: null,
  warnings: [],
  relative: { to: 2, ratio },
});
const RUST_REASON =
  'not installed: ssserver, sslocal not found on PATH; install it with `cargo install shadowsocks-rust`';

function result() {
  const fixture = JSON.parse(readFileSync(new URL('../fixtures/result-v2.json', import.meta.url), 'utf8'));
  return {
    ...fixture,
    options: { ...fixture.options, repeat: 1, engine: 'node', relativeTo: 'libev' },
    cases: [
      measured({ index: 0, presets: GCM }, 1.5e9, 0.75),
      measured({ index: 1, impl: 'direct', label: 'direct (no relay)' }, 20e9, 10),
      measured(
        { index: 2, impl: 'shadowsocks-libev', method: 'aes-256-gcm', label: 'shadowsocks-libev aes-256-gcm' },
        2e9,
        null,
      ),
      {
        ...measured(
          { index: 3, impl: 'shadowsocks-rust', method: 'aes-256-gcm', label: 'shadowsocks-rust aes-256-gcm' },
          0,
          null,
        ),
        status: 'skipped',
        reason: RUST_REASON,
        runs: [],
        sender: null,
        receiver: null,
        wallSeconds: 0,
      },
    ],
  };
}

test('text: the engine in the header, the row by its label, and each median against the anchor', () => {
  assert.match(
    formatHeader(result()),
    /^cipherbench:\nversion {9}0\.1\.0\nengine {10}node \(built in: cipherbench send and sink\)\ncases {11}\/work\/cases\.js\n\n/,
  );
  assert.equal(formatCaseBlock(result().cases[2]).split('\n')[1], 'shadowsocks-libev aes-256-gcm');
  const lines = formatRanking(result()).split('\n');
  assert.deepEqual(lines.slice(2, 5), [
    ' 1: Case 1, Bitrate=[20.0 Gbits/sec, 20.0 Gbits/sec], 10.00 x shadowsocks-libev aes-256-gcm, direct (no relay)',
    ' 2: Case 2, Bitrate=[2.00 Gbits/sec, 2.00 Gbits/sec], anchor, shadowsocks-libev aes-256-gcm',
    ' 3: Case 0, Bitrate=[1.50 Gbits/sec, 1.50 Gbits/sec], 0.75 x shadowsocks-libev aes-256-gcm, ss-base + ss-aead-cipher(aes-256-gcm)',
  ]);
  assert.ok(lines.includes(`    Case 3, SKIPPED: ${RUST_REASON}, shadowsocks-rust aes-256-gcm`));
  assert.ok(
    lines.includes('N x: against Case 2 (shadowsocks-libev aes-256-gcm), the case --relative-to "libev" named.'),
    lines.join('\n'),
  );
});

test('a result without --relative-to or an engine prints as before', () => {
  const plain = result();
  delete plain.options.engine;
  for (const caseResult of plain.cases) caseResult.relative = null;
  assert.doesNotMatch(formatHeader(plain), /engine/);
  assert.match(
    formatRanking(plain),
    /\n 1: Case 1, Bitrate=\[20\.0 Gbits\/sec, 20\.0 Gbits\/sec\], direct \(no relay\)\n/,
  );
  assert.doesNotMatch(formatMarkdownReport(plain), /Relative|Engine/);
});

test('Markdown: a column against the anchor, reference rows by label, the engine in the environment', () => {
  const markdown = formatMarkdownReport(result());
  assert.match(markdown, /\n\| Engine \| node \(built in\) \|\n/);
  assert.match(
    markdown,
    /\n\| # \| Case \| Chain or implementation \| Sender \| Receiver \| Relative to shadowsocks-libev aes-256-gcm \|\n/,
  );
  assert.match(
    markdown,
    /\n\| 1 \| 1 \| `direct \(no relay\)` \| 20\.0 Gbits\/sec \| \*\*20\.0 Gbits\/sec\*\* \| 10\.00 x \|\n/,
  );
  assert.match(markdown, /\n\| 2 \| 2 \| `shadowsocks-libev aes-256-gcm` \| .* \| anchor \|\n/);
  assert.match(markdown, /\n\| 3 \| 0 \| `ss-base \+ ss-aead-cipher\(aes-256-gcm\)` \| .* \| 0\.75 x \|\n/);
  assert.match(markdown, /\n- Case 3 `shadowsocks-rust aes-256-gcm`: skipped: not installed: /);
});

test('HTML: the same column, and the chart names a reference row by its label', () => {
  const html = formatHtmlReport(result());
  assert.match(html, /<th class="number">Relative to shadowsocks-libev aes-256-gcm<\/th>/);
  assert.match(
    html,
    /<td class="number" data-title="Relative to shadowsocks-libev aes-256-gcm"><span>0\.75 x<\/span><\/td>/,
  );
  assert.match(html, />2\. Case 2: shadowsocks-libev aes-256-gcm</);
  assert.match(html, /<li>Case 3 <code>shadowsocks-rust aes-256-gcm<\/code>: skipped: not installed: /);
});

test('compare matches reference rows by what they ran, and names them by label', () => {
  const newer = result();
  newer.cases[2].receiver = side(1e9);
  // One run a side: only --strict gives a verdict.
  const comparison = compareResults(result(), newer, { strict: true });
  assert.deepEqual(
    comparison.rows.map((row) => [row.index, row.label, row.verdict]),
    [
      [0, 'ss-base + ss-aead-cipher(aes-256-gcm)', 'within-threshold'],
      [1, 'direct (no relay)', 'within-threshold'],
      [2, 'shadowsocks-libev aes-256-gcm', 'slower'],
      [3, 'shadowsocks-rust aes-256-gcm', 'not-measured'],
    ],
  );
  assert.match(
    formatComparison(comparison),
    /\n {3}2 {2}forward {4}shadowsocks-libev aes-256-gcm +2\.00 Gbits\/sec {2}1\.00 Gbits\/sec {2}-50\.0% +slower\n/,
  );
});

test('the header names each reference row program with the version it said, in text and in the exports', () => {
  const withPeers = result();
  withPeers.environment.peers = { 'shadowsocks-libev': '3.3.5', xray: '26.3.27' };
  assert.match(formatHeader(withPeers), /\nPeers:\nshadowsocks-libev +3\.3\.5\nxray +26\.3\.27$/);
  assert.match(formatMarkdownReport(withPeers), /Peers \| shadowsocks-libev 3\.3\.5, xray 26\.3\.27/);
  assert.doesNotMatch(formatHeader(result()), /Peers:/, 'absent when no row said a version');
});
