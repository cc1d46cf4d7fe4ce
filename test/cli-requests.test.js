import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { emptyFolder, runCli } from './support/cli.js';
import { freePortsFlag } from './support/ports.js';
import { requirePrograms, which } from './support/programs.js';

// `cipherbench requests` and `run --requests` as a person types them: each
// mistake one line and exit 2 before anything starts, and a short real run
// whose every report carries the requests table.
const AES = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }];

function casesFile(cases) {
  const cwd = emptyFolder();
  const file = path.join(cwd, 'cases.json');
  writeFileSync(file, JSON.stringify(cases));
  return { cwd, file };
}

describe('cipherbench requests: mistakes are one line and exit 2, before anything starts', () => {
  const cases = [
    {
      what: '--concurrency 0',
      cases: [AES],
      args: ['requests', '--concurrency', '0'],
      stderr: /^cipherbench: concurrency must be a whole number of clients, 1 to 4096; got "0"\n$/,
    },
    {
      what: '--requests with --engine iperf3',
      cases: [AES],
      args: ['run', '--requests', '--engine', 'iperf3'],
      stderr: /^cipherbench: --requests runs its own HTTP clients, not iperf3: drop --engine iperf3\n$/,
    },
    {
      what: '--concurrency without --requests',
      cases: [AES],
      args: ['run', '--concurrency', '5'],
      stderr: /^cipherbench: --concurrency goes with --requests\n$/,
    },
    {
      what: '--udp with requests (once a crash in the UDP rate search)',
      cases: [AES],
      args: ['requests', '--udp', '--smoke'],
      stderr:
        /^cipherbench: --udp measures datagrams \(iperf3 -u\), not requests: drop it, or measure UDP with `cipherbench run --udp`\n$/,
    },
    {
      what: 'run --requests with --udp --rate (once dropped without a word)',
      cases: [AES],
      args: ['run', '--requests', '--udp', '--rate', '10M'],
      stderr: /^cipherbench: --udp measures datagrams \(iperf3 -u\), not requests/,
    },
    {
      what: '--parallel with requests',
      cases: [AES],
      args: ['requests', '--parallel', '4'],
      stderr:
        /^cipherbench: --parallel sets iperf3's parallel streams \(-P\), not the request workload's clients: drop it, or give --concurrency\n$/,
    },
    {
      what: 'an unknown inbound',
      cases: [{ chain: AES, inbound: 'socks4' }],
      args: ['requests'],
      stderr:
        /case 0: inbound: unknown inbound "socks4" \(did you mean "socks5"\?\); valid: tunnel, socks5, http-connect, http-proxy\n$/,
    },
    {
      what: 'an inbound the row does not have',
      cases: [{ impl: 'shadowsocks-libev', method: 'aes-128-gcm', inbound: 'http-proxy' }],
      args: ['requests'],
      stderr: /case 0: inbound: shadowsocks-libev has no http-proxy inbound; it takes tunnel, socks5\n$/,
    },
    {
      what: 'an inbound on a row without any',
      cases: [{ impl: 'direct', inbound: 'socks5' }],
      args: ['requests'],
      stderr: /case 0: inbound: direct takes no field "inbound"/,
    },
    {
      what: '--engine wrk with a SOCKS5 case',
      cases: [AES, { chain: AES, inbound: 'socks5' }],
      args: ['requests', '--engine', 'wrk'],
      stderr:
        /^cipherbench: --engine wrk: case 1 has the socks5 inbound, which wrk does not speak: run with --engine node, whose client speaks every inbound\n$/,
    },
    {
      what: '--engine wrk without --requests',
      cases: [AES],
      args: ['run', '--engine', 'wrk'],
      stderr:
        /^cipherbench: --engine wrk loads the request workload: add --requests, or measure a bulk stream with --engine iperf3 or node\n$/,
    },
    {
      what: '--engine wrk where wrk is not installed',
      cases: [AES],
      args: ['requests', '--engine', 'wrk'],
      env: { PATH: '/nonexistent' },
      stderr:
        /^cipherbench: wrk is not installed \(not found on PATH\): install it with `sudo apt-get install wrk` \(Debian\/Ubuntu\) or `brew install wrk` \(macOS\), or run with --engine node\n$/,
    },
    {
      what: 'a SOCKS5 case in a bulk-stream run',
      cases: [{ chain: AES, inbound: 'socks5' }],
      args: ['run'],
      stderr:
        /^cipherbench: case 0 has inbound socks5, which only the request workload uses: run with --requests, or give the case no inbound\n$/,
    },
  ];
  for (const { what, cases: given, args, stderr, env } of cases) {
    test(what, async () => {
      const { cwd, file } = casesFile(given);
      const result = await runCli([...args, file, '--no-archive', ...(await freePortsFlag())], { cwd, env });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, stderr);
      assert.equal(result.stdout, '');
      assert.deepEqual(result.descendants, [], 'nothing started');
    });
  }
});

test('cipherbench requests --help lists only what the request workload takes', async () => {
  const bulkOnly = ['--parallel', '--reverse', '--both', '--latency', '--udp', '--rate', '--length', '--max-loss'];
  const requests = await runCli(['requests', '--help']);
  assert.equal(requests.code, 0, requests.stderr);
  assert.match(requests.stdout, /--concurrency <clients>/);
  for (const flag of bulkOnly) assert.doesNotMatch(requests.stdout, new RegExp(`^ +${flag}\\b`, 'm'), flag);
  const run = await runCli(['run', '--help']);
  for (const flag of bulkOnly) assert.match(run.stdout, new RegExp(`^ +${flag}\\b`, 'm'), flag);
});

test(
  'cipherbench requests: direct and our pair through SOCKS5 and HTTP, the requests table in every report',
  { timeout: 120_000 },
  async (t) => {
    if (!requirePrograms(t, 'curl')) return;
    const { cwd, file } = casesFile([
      { impl: 'direct' },
      { chain: AES, inbound: 'socks5' },
      { chain: AES, inbound: 'http-proxy' },
    ]);
    const result = await runCli(
      [
        'requests',
        file,
        '--duration',
        '1',
        '--warmup',
        '1',
        '--concurrency',
        '4',
        '--no-ceiling',
        '--no-archive',
        '--json',
        '-',
        '--markdown',
        'r.md',
        '--html',
        'r.html',
        ...(await freePortsFlag()),
      ],
      { cwd },
    );
    assert.equal(result.code, 0, result.stderr);
    const json = JSON.parse(result.stdout);
    assert.deepEqual([json.workload, json.options.requests], ['requests', true]);
    // wrk does not speak SOCKS5: the built-in client loads every case, saying why.
    assert.equal(json.options.engine, 'node');
    assert.deepEqual(json.warnings, [
      'the built-in Node client loads every case, not wrk: case 1 has the socks5 inbound, which wrk does not speak; its own CPU may squeeze the rows (docs/requests.md)',
    ]);
    assert.match(result.stderr, /^engine +node \(built in: its own HTTP client\)$/m);
    // The machine's own spread, as for a bulk run: the direct runs' noise
    // floor, which marks ranks closer than it and lets compare see the machine.
    assert.equal(json.noiseFloor?.runs, 3, JSON.stringify(json.noiseFloor));
    assert.match(result.stderr, /\nnoise floor: direct \(no relay\) varied by cv \d+\.\d% over 3 runs of 1 s/);
    assert.deepEqual(
      json.cases.map((c) => [c.status, c.requests?.kind]),
      [
        ['ok', 'tunnel'],
        ['ok', 'socks5'],
        ['ok', 'http-proxy'],
      ],
    );
    for (const caseResult of json.cases) {
      assert.ok(caseResult.requests.ok > 0);
      assert.deepEqual(caseResult.requests.errors, { refused: 0, reset: 0, timeout: 0, badResponse: 0 });
      assert.equal(caseResult.sender, null);
      for (const figure of ['p50', 'p90', 'p99', 'p999', 'max', 'stdev'])
        assert.equal(typeof caseResult.requests.latency[figure], 'number');
    }
    assert.equal(json.cases[0].requests.cpuSecondsPerThousand, null, 'direct starts no relay');
    assert.ok(json.cases[1].requests.cpuSecondsPerThousand.client > 0);
    for (const caseResult of json.cases) {
      const { generator } = caseResult.requests;
      assert.equal(generator.engine, 'node');
      assert.ok(
        generator.cpuSecondsPerThousand > 0 && generator.share > 0 && generator.share < 1,
        JSON.stringify(generator),
      );
      assert.equal(typeof caseResult.runs[0].disturbance.idle, 'number', 'how busy the machine was while it measured');
    }
    // With the JSON on stdout, the text report goes to stderr.
    assert.match(
      result.stderr,
      /Rank +Impl +Kind +OK +Errors +req\/s +p50 +p90 +p99 +p99\.9 +max +stdev +CPU ms\/1k req +load gen ms\/1k/,
    );
    assert.match(result.stderr, /ss-base \+ ss-aead-cipher\(aes-128-gcm\) +socks5 /);
    const markdown = readFileSync(path.join(cwd, 'r.md'), 'utf8');
    assert.match(
      markdown,
      /\| Rank \| Impl \| Kind \| OK \| Errors \| req\/s \| p50 \| p90 \| p99 \| p99\.9 \| max \| stdev \| CPU ms\/1k req \| load gen ms\/1k \|/,
    );
    assert.match(markdown, /\| direct \(no relay\) \| tunnel \|/);
    const html = readFileSync(path.join(cwd, 'r.html'), 'utf8');
    assert.match(html, /<section id="requests">[^]*<th class="number">req\/s<\/th>[^]*<td>socks5<\/td>/);
  },
);

test(
  'cipherbench requests --repeat 3 --relative-to: requests per second with its interval and a paired ratio, in every report',
  { timeout: 120_000 },
  async () => {
    const { cwd, file } = casesFile([{ impl: 'direct' }, AES]);
    const result = await runCli(
      [
        'requests',
        file,
        '--duration',
        '1',
        '--warmup',
        '0',
        '--concurrency',
        '4',
        '--repeat',
        '3',
        '--relative-to',
        '0',
        '--no-ceiling',
        '--no-archive',
        '--json',
        '-',
        '--markdown',
        'r.md',
        ...(await freePortsFlag()),
      ],
      { cwd },
    );
    assert.equal(result.code, 0, result.stderr);
    const json = JSON.parse(result.stdout);
    // wrk loads the cases when it is installed (.ci/run installs it): both speak the tunnel inbound.
    assert.equal(json.options.engine, which('wrk') ? 'wrk' : 'node');
    if (json.options.engine === 'wrk') assert.match(json.environment.wrk.version, /\d+\.\d+/);
    const [direct, pair] = json.cases;
    for (const { requests } of [direct, pair]) {
      assert.ok(
        requests.low > 0 && requests.low <= requests.requestsPerSecond && requests.requestsPerSecond <= requests.high,
        JSON.stringify(requests),
      );
      assert.equal(requests.coverage, 0.75, 'three runs give min..max, a 75% interval');
    }
    assert.equal(direct.relative.ratio, null, 'the reference itself');
    assert.equal(pair.relative.rounds, 3);
    assert.ok(
      pair.relative.low <= pair.relative.ratio && pair.relative.ratio <= pair.relative.high,
      JSON.stringify(pair.relative),
    );
    // The ratio is the median of the rounds' ratios of requests per second,
    // read from the runs this report carries; a ratio of the medians can be
    // twice or half of it when one round is slowed by a loaded machine.
    const perRound = (run) =>
      run.requests.requestsPerSecond /
      direct.runs.find((other) => other.round === run.round).requests.requestsPerSecond;
    const ratios = pair.runs.map(perRound).sort((a, b) => a - b);
    assert.equal(ratios.length, 3);
    assert.ok(pair.relative.low > 0);
    assert.equal(
      pair.relative.ratio,
      ratios[1],
      `the ratio is the median of the rounds' ratios of requests per second: ${ratios}`,
    );
    assert.match(result.stderr, /req\/s +p50 .* CPU ms\/1k req +load gen ms\/1k +x anchor/);
    // A run that other tests' processes disturbed says so after its interval.
    assert.match(result.stderr, / \d+ \[\d+-\d+ at 75%\](, disturbed[^ ]*)? .* anchor\n/);
    assert.match(result.stderr, /ss-base \+ ss-aead-cipher\(aes-128-gcm\) .* \d+\.\d\d x \[\d+\.\d\d-\d+\.\d\d\]\n/);
    assert.match(readFileSync(path.join(cwd, 'r.md'), 'utf8'), /\| CPU ms\/1k req \| load gen ms\/1k \| x anchor \|/);
  },
);
