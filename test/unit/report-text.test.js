import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { formatCaseBlock, formatHeader, formatRanking, formatTextReport } from '../../lib/report/text-report.js';

const ANSI = /\x1b\[/;
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

const chain = (cipher, method) => [{ name: 'ss-base' }, { name: cipher, params: { method } }];
const ok = (index, presets, sender, receiver) => ({
  index,
  presets,
  status: 'ok',
  reason: null,
  sender: { bytes: Math.round(sender[0]), seconds: 3.0, bits_per_second: sender[1] },
  receiver: { bytes: Math.round(receiver[0]), seconds: receiver[2], bits_per_second: receiver[1] },
  wallSeconds: 4.2,
});
const notMeasured = (index, presets, status, reason) => ({
  index,
  presets,
  status,
  reason,
  sender: null,
  receiver: null,
  wallSeconds: 0,
});

// The four cases and the machine of the blinksocks report (the seed), so the
// blocks and ranking can be checked against its text line for line.
function seedResult() {
  return {
    tool: { name: 'cipherbench', version: '0.1.0' },
    startedAt: '2017-10-09T01:02:03.456Z',
    finishedAt: '2017-10-09T01:03:02.966Z',
    wallSeconds: 59.51,
    complete: true,
    interrupted: null,
    environment: {
      cpu: { model: 'Intel(R) Core(TM) i3-4160 CPU @ 3.60GHz', cores: 4, physicalCores: 2, aes: true },
      memory: 16722886656,
      os: { type: 'Linux', platform: 'linux', arch: 'x64', release: '4.4.0-96-generic', distro: 'Ubuntu 16.04.3 LTS' },
      node: { http_parser: '2.7.0', node: '8.6.0', v8: '6.0.287.53', uv: '1.14.1', openssl: '1.0.2l' },
      iperf3: { path: '/usr/bin/iperf3', version: '3.12' },
    },
    options: {
      casesFile: '/tmp/cases.js',
      duration: 3,
      parallel: 1,
      filter: null,
      ports: { client: 1081, server: 1082, target: 1083 },
    },
    cases: [
      ok(0, chain('ss-stream-cipher', 'aes-256-ctr'), [1.89 * GiB, 5.42e9], [1.77 * GiB, 4.88e9, 3.11]),
      ok(1, chain('ss-stream-cipher', 'aes-256-cfb'), [994 * MiB, 2.78e9], [890 * MiB, 2.26e9, 3.31]),
      ok(2, chain('ss-stream-cipher', 'camellia-256-cfb'), [502 * MiB, 1.4e9], [394 * MiB, 887e6, 3.73]),
      ok(3, chain('ss-aead-cipher', 'aes-256-gcm'), [804 * MiB, 2.25e9], [489 * MiB, 1.24e9, 3.31]),
    ],
  };
}

function withUnmeasuredCases() {
  const result = seedResult();
  result.cases.splice(
    1,
    0,
    notMeasured(
      4,
      chain('ss-aead-cipher', 'chacha20-ietf-poly1305'),
      'failed',
      'relay client exited with code 1\nError: listen EADDRINUSE 127.0.0.1:1081',
    ),
  );
  result.cases.push(
    notMeasured(5, chain('ss-stream-cipher', 'rc4-md5'), 'skipped', 'rc4-md5 needs OpenSSL legacy provider'),
  );
  return result;
}

function interruptedResult() {
  const result = seedResult();
  result.complete = false;
  result.interrupted = 'SIGINT';
  for (const caseResult of result.cases.slice(2))
    Object.assign(caseResult, notMeasured(caseResult.index, caseResult.presets, 'skipped', 'run interrupted'));
  return result;
}

test('a measured case block is the seed block, line for line', () => {
  const [first, , third] = seedResult().cases;
  assert.equal(
    formatCaseBlock(first, { color: false }),
    [
      '------------ Case 0 ---------------------',
      'ss-base + ss-stream-cipher(aes-256-ctr)',
      'Interval         Transfer     Bitrate',
      '0.00-3.00   sec  1.89 GBytes  5.42 Gbits/sec  sender',
      '0.00-3.11   sec  1.77 GBytes  4.88 Gbits/sec  receiver',
      '-----------------------------------------',
    ].join('\n'),
  );
  assert.match(
    formatCaseBlock(third, { color: false }),
    /^0\.00-3\.73 {3}sec {2}394 MBytes {2}887 Mbits\/sec {2}receiver$/m,
  );
});

test('a case that did not measure says why instead of rows', () => {
  const result = withUnmeasuredCases();
  assert.equal(
    formatCaseBlock(result.cases[1], { color: false }),
    [
      '------------ Case 4 ---------------------',
      'ss-base + ss-aead-cipher(chacha20-ietf-poly1305)',
      'FAILED: relay client exited with code 1',
      '  Error: listen EADDRINUSE 127.0.0.1:1081',
      '-----------------------------------------',
    ].join('\n'),
  );
  assert.match(
    formatCaseBlock(result.cases.at(-1), { color: false }),
    /^SKIPPED: rc4-md5 needs OpenSSL legacy provider$/m,
  );
});

test('ranking is by receiver bitrate, highest first, as in the seed', () => {
  assert.equal(
    formatRanking(seedResult(), { color: false }),
    [
      '(ranking):',
      '',
      ' 1: Case 0, Bitrate=[5.42 Gbits/sec, 4.88 Gbits/sec], ss-base + ss-stream-cipher(aes-256-ctr)',
      ' 2: Case 1, Bitrate=[2.78 Gbits/sec, 2.26 Gbits/sec], ss-base + ss-stream-cipher(aes-256-cfb)',
      ' 3: Case 3, Bitrate=[2.25 Gbits/sec, 1.24 Gbits/sec], ss-base + ss-aead-cipher(aes-256-gcm)',
      ' 4: Case 2, Bitrate=[1.40 Gbits/sec, 887 Mbits/sec], ss-base + ss-stream-cipher(camellia-256-cfb)',
      '',
      'Done in 59.51s.',
    ].join('\n'),
  );
});

test('failed and skipped cases follow the ranking with their first reason line', () => {
  const lines = formatRanking(withUnmeasuredCases(), { color: false }).split('\n');
  assert.deepEqual(
    lines.filter((line) => /^ *\d+: /.test(line)).map((line) => line.split(',')[0]),
    [' 1: Case 0', ' 2: Case 1', ' 3: Case 3', ' 4: Case 2'],
  );
  const notRanked = lines.slice(lines.indexOf('(not ranked):'));
  assert.deepEqual(notRanked.slice(0, 4), [
    '(not ranked):',
    '',
    '    Case 4, FAILED: relay client exited with code 1, ss-base + ss-aead-cipher(chacha20-ietf-poly1305)',
    '    Case 5, SKIPPED: rc4-md5 needs OpenSSL legacy provider, ss-base + ss-stream-cipher(rc4-md5)',
  ]);
  assert.equal(lines.at(-1), 'Done in 59.51s.');
});

test('an interrupted run says so above the ranking, and at the end in place of "Done in"', () => {
  const lines = formatRanking(interruptedResult(), { color: false }).split('\n');
  assert.equal(lines[2], 'INCOMPLETE: interrupted by SIGINT; 2 of 4 cases measured.');
  assert.equal(lines.at(-1), 'Interrupted by SIGINT after 59.51s.');
  assert.equal(
    formatRanking({ ...interruptedResult(), interrupted: 'aborted' }, { color: false })
      .split('\n')
      .at(-1),
    'Cut short after 59.51s.',
  );
  assert.match(lines[4], /^ 1: Case 0,/);
  assert.ok(lines.includes('    Case 3, SKIPPED: run interrupted, ss-base + ss-aead-cipher(aes-256-gcm)'));

  const aborted = { ...interruptedResult(), interrupted: 'aborted' };
  assert.equal(
    formatRanking(aborted, { color: false }).split('\n')[2],
    'INCOMPLETE: the run was cut short; 2 of 4 cases measured.',
  );
});

test('the header lists the machine, every Node.js version and iperf3, aligned', () => {
  assert.equal(
    formatHeader(seedResult(), { color: false }),
    [
      'cipherbench:',
      'version         0.1.0',
      'cases           /tmp/cases.js',
      '',
      'Operating System:',
      'cpu             Intel(R) Core(TM) i3-4160 CPU @ 3.60GHz',
      'cores           4 (2 physical)',
      'memory          15.6 GBytes',
      'type            Linux',
      'platform        linux',
      'arch            x64',
      'release         4.4.0-96-generic',
      'distro          Ubuntu 16.04.3 LTS',
      'aes             yes',
      '',
      'Node.js Versions:',
      'http_parser     2.7.0',
      'node            8.6.0',
      'v8              6.0.287.53',
      'uv              1.14.1',
      'openssl         1.0.2l',
      '',
      'iperf3:',
      'version         3.12',
      'path            /usr/bin/iperf3',
    ].join('\n'),
  );
});

test('the header widens its label column for long names and says what is unknown', () => {
  const result = seedResult();
  result.environment.node = { ...process.versions };
  result.environment.cpu.aes = null;
  result.environment.iperf3 = { path: null, version: null };
  const lines = formatHeader(result, { color: false }).split('\n');
  const width = Math.max(16, ...Object.keys(process.versions).map((name) => name.length + 1));
  for (const [name, version] of Object.entries(process.versions)) {
    assert.ok(lines.includes(`${name.padEnd(width)}${version}`), `row for ${name}`);
  }
  assert.ok(lines.includes(`${'aes'.padEnd(width)}unknown`));
  assert.deepEqual(lines.slice(-2), ['iperf3:', `${'version'.padEnd(width)}not found`]);
});

test('the full report runs header, case blocks and ranking in the seed order', () => {
  const result = withUnmeasuredCases();
  const text = formatTextReport(result, { color: false });
  const sections = text.split('\n\n');
  assert.equal(sections[0], 'cipherbench:\nversion         0.1.0\ncases           /tmp/cases.js');
  assert.ok(sections.includes('running 6 cases...'));
  for (const caseResult of result.cases) assert.ok(text.includes(formatCaseBlock(caseResult, { color: false })));
  assert.ok(text.indexOf('running 6 cases...') < text.indexOf('Case 0 ---'));
  assert.ok(text.indexOf('Case 5 ---') < text.indexOf('(ranking):'));
  assert.ok(text.endsWith('Done in 59.51s.\n'));
});

test('colour only when asked, and then the same text underneath', () => {
  for (const result of [withUnmeasuredCases(), interruptedResult()]) {
    const plain = formatTextReport(result, { color: false });
    const colored = formatTextReport(result, { color: true });
    assert.doesNotMatch(plain, ANSI);
    assert.match(colored, ANSI);
    assert.equal(colored.replace(/\x1b\[\d+m/g, ''), plain);
  }
  assert.match(formatCaseBlock(withUnmeasuredCases().cases[1], { color: true }), /\x1b\[31mFAILED\x1b\[39m/);
});

// A hand-built result with repeats, cost, latency and ceiling (docs/result.md).
const repeated = () => JSON.parse(readFileSync(new URL('../fixtures/result-v2.json', import.meta.url), 'utf8'));

test('a repeated case shows the median run, the spread, cost, latency and ceiling', () => {
  assert.equal(
    formatCaseBlock(repeated().cases[0], { color: false }),
    [
      '------------ Case 0 ---------------------',
      'ss-base + ss-aead-cipher(aes-256-gcm)',
      'Interval         Transfer     Bitrate',
      '0.00-3.00   sec  937 MBytes  2.62 Gbits/sec  sender',
      '0.00-3.04   sec  888 MBytes  2.45 Gbits/sec  receiver',
      'sender    median 2.62 Gbits/sec  min 2.55  max 2.66  cv 2.1%  (3 runs)',
      'receiver  median 2.45 Gbits/sec  min 2.41  max 2.52  cv 2.3%  (3 runs)',
      'cost             cpu s  cpu s/GB     peak RSS',
      'relay client      2.10      2.23  58.3 MBytes',
      'relay server      2.18      2.32  57.7 MBytes',
      'latency (ms)     count   mean    p50    p90    p99  p99.9    max',
      'rtt               2000  0.081  0.075  0.102  0.181  0.402  0.812',
      'connect            200  0.512  0.470  0.610  0.980  1.700  1.700',
      'ceiling          encrypt 5.12 Gbits/sec  decrypt 5.40 Gbits/sec  (16.0 KBytes reads, one core)  efficiency 47.9%',
      '-----------------------------------------',
    ].join('\n'),
  );
});

test('an unstable case is marked in its block and its rank, with a warning under the ranking', () => {
  const result = repeated();
  assert.match(
    formatCaseBlock(result.cases[2], { color: false }),
    /^receiver  median 1\.35 Gbits\/sec  min 1\.10  max 1\.62  cv 19\.2%  \(3 runs\)  UNSTABLE$/m,
  );
  const lines = formatRanking(result, { color: false }).split('\n');
  assert.deepEqual(
    lines.filter((line) => /^ *\d+: /.test(line)).map((line) => line.replace(/, ss-base \+ .*$/, '')),
    [
      ' 1: Case 0, Bitrate=[2.62 Gbits/sec, 2.45 Gbits/sec], median of 3, cv 2.3%',
      ' 2: Case 0 (reverse), Bitrate=[2.49 Gbits/sec, 2.35 Gbits/sec], median of 3, cv 1.7%',
      ' 3: Case 1 (reverse), Bitrate=[1.59 Gbits/sec, 1.49 Gbits/sec], median of 2, cv 0.9%',
      ' 4: Case 1, Bitrate=[1.45 Gbits/sec, 1.35 Gbits/sec], median of 3, cv 19.2% UNSTABLE',
    ],
  );
  assert.ok(
    lines.some((line) =>
      line.startsWith('UNSTABLE: the receiver bitrate of 1 case varied by more than 10.0% between runs'),
    ),
  );
  assert.ok(
    lines.includes(
      '    Case 2 (reverse), FAILED: relay server exited with code 1, ss-base + ss-stream-cipher(rc4-md5)',
    ),
  );
  assert.ok(!formatRanking(seedResult(), { color: false }).includes('UNSTABLE'));
});

test('a reverse case with a failed repeat says so; parallel streams are named', () => {
  const caseResult = repeated().cases[3];
  const lines = formatCaseBlock(caseResult, { color: false }).split('\n');
  assert.equal(lines[2], 'direction        reverse (iperf3 -R: iperf3 -s sends)');
  assert.ok(lines.includes('receiver  median 1.49 Gbits/sec  min 1.48  max 1.50  cv 0.9%  (2 of 3 runs ok)'));
  assert.ok(lines.includes('run 3 of 3: FAILED: iperf3 -c exited with code 1: unable to connect to server'));
  caseResult.parallel = 4;
  assert.equal(formatCaseBlock(caseResult, { color: false }).split('\n')[3], 'parallel         4 streams (iperf3 -P)');
});

test('one run with no extras keeps the seed block and ranking line exactly', () => {
  const result = seedResult();
  for (const caseResult of result.cases) {
    const { sender, receiver, wallSeconds } = caseResult;
    Object.assign(caseResult, {
      direction: 'forward',
      parallel: 1,
      runs: [{ round: 0, status: 'ok', reason: null, sender, receiver, wallSeconds, cost: null }],
      sender: { ...sender, min: sender.bits_per_second, max: sender.bits_per_second, cv: 0 },
      receiver: { ...receiver, min: receiver.bits_per_second, max: receiver.bits_per_second, cv: 0 },
      unstable: false,
      cost: null,
      latency: null,
      ceiling: null,
    });
  }
  assert.equal(formatTextReport(result, { color: false }), formatTextReport(seedResult(), { color: false }));
});

test('a figure asked for but not measured says why, above the closing line', () => {
  const caseResult = repeated().cases[4];
  caseResult.warnings = ["no cipher ceiling: needs OpenSSL's legacy provider, which could not be loaded: unsupported"];
  assert.deepEqual(formatCaseBlock(caseResult, { color: false }).split('\n').slice(-2), [
    "warning: no cipher ceiling: needs OpenSSL's legacy provider, which could not be loaded: unsupported",
    '-----------------------------------------',
  ]);
});

test('colour on the new lines only when asked, and the same text underneath', () => {
  const result = repeated();
  const plain = formatTextReport(result, { color: false });
  const colored = formatTextReport(result, { color: true });
  assert.doesNotMatch(plain, ANSI);
  assert.match(colored, /\x1b\[33m\x1b\[1mUNSTABLE/);
  assert.equal(colored.replace(/\x1b\[\d+m/g, ''), plain);
});

test('a reference row reads by its label everywhere, never as JSON', () => {
  const result = seedResult();
  const command = {
    ...ok(6, undefined, [1 * GiB, 3e9], [1 * GiB, 2.9e9, 3.0]),
    impl: 'command',
    label: 'before aes-256-gcm',
    client:
      'node ../before/bin/cipherbench.js relay client --listen {listen} --server {server} --forward {forward} --key {key} --presets \'[{"name":"ss-base"}]\'',
    server:
      'node ../before/bin/cipherbench.js relay server --listen {listen} --key {key} --presets \'[{"name":"ss-base"}]\'',
  };
  delete command.presets;
  result.cases.push(command);
  const text = formatTextReport(result, { color: false });
  assert.ok(!text.includes('{"'), 'no JSON in the text report');
  assert.match(text, /^ 2: Case 6, Bitrate=\[3\.00 Gbits\/sec, 2\.90 Gbits\/sec\], before aes-256-gcm$/m);
  assert.match(formatCaseBlock(command), /^------------ Case 6 ---------------------\nbefore aes-256-gcm\n/);
  // Every ranking line stays short enough for a terminal.
  for (const line of formatRanking(result).split('\n')) assert.ok(line.length <= 110, line);
});

test('the header gives memory in iperf3 units and names the bundled cases file as bundled', async () => {
  const { BUNDLED_CASES_FILE } = await import('../../lib/runner/cases-file.js');
  const result = seedResult();
  result.options.casesFile = BUNDLED_CASES_FILE;
  const header = formatHeader(result);
  assert.match(header, /^memory {10}15\.6 GBytes$/m);
  assert.ok(header.split('\n').includes(`cases           bundled (${BUNDLED_CASES_FILE})`));
  // The shipped file, edited in a clone: named by its path alone.
  result.options.casesSource = 'file';
  assert.ok(formatHeader(result).split('\n').includes(`cases           ${BUNDLED_CASES_FILE}`));
  result.options.casesSource = 'bundled';
  assert.ok(formatHeader(result).split('\n').includes(`cases           bundled (${BUNDLED_CASES_FILE})`));
});
