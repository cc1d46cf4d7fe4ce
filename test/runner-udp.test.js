import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { test } from 'node:test';
import { BISECTION_PROBES, bisectRate, summariseUdp } from '../lib/workload/udp.js';
import { startUdpEchoTarget } from '../lib/traffic/udp-echo-target.js';
import { measureUdpRoundTrips } from '../lib/traffic/udp-latency.js';
import { casesFolder, runCli, UDP_RUN } from './support/cli.js';
import { freePortsFlag } from './support/ports.js';
import { requirePrograms } from './support/programs.js';

// run --udp: iperf3 -u through each case's relays, TCP control and UDP
// stream on the same ports, and the figures iperf3's receiver counts in the
// result and the text report. Loss is not asserted (loopback UDP on a
// loaded machine drops what it drops); that the datagrams went through the
// relays is: every row received some, and a row whose relay refused them
// would receive none.
const AES = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];

test(
  "run --udp through our relays (SIP004 and SIP022) and shadowsocks-libev's: offered rate, loss, jitter, out-of-order per case",
  { timeout: 180_000 },
  async (t) => {
    if (!requirePrograms(t, 'iperf3', 'ss-server', 'ss-tunnel')) return;
    const cases = [
      AES,
      [{ name: 'ss-2022', params: { method: '2022-blake3-aes-256-gcm' } }],
      { impl: 'shadowsocks-libev', method: 'aes-256-gcm' },
    ];
    const { code, stdout, stderr } = await runCli([...UDP_RUN, ...(await freePortsFlag())], {
      cwd: casesFolder(cases),
      env: { NO_COLOR: '1' },
    });
    assert.equal(code, 0, stderr);
    const result = JSON.parse(stdout);
    assert.deepEqual(
      [result.workload, result.options.udp, result.options.rate, result.options.length],
      ['udp', true, 20e6, 1200],
    );
    for (const caseResult of result.cases) {
      assert.equal(caseResult.status, 'ok', caseResult.reason);
      const { udp } = caseResult;
      assert.equal(udp.offeredBps, 20e6);
      assert.equal(udp.length, 1200);
      assert.ok(
        udp.packets > 0 && udp.lost_packets < udp.packets,
        `${JSON.stringify(udp)}: datagrams crossed the relays`,
      );
      assert.ok(udp.lost_percent >= 0 && udp.lost_percent <= 100);
      assert.ok(udp.jitter_ms >= 0 && Number.isInteger(udp.out_of_order));
      assert.ok(caseResult.receiver.bytes > 0);
      assert.ok(caseResult.runs[0].udp.packets === udp.packets);
    }
    assert.match(
      stderr,
      /udp +offered +datagram +lost +jitter +out of order\n +20(\.0)? Mbits\/sec +1200 B +[\d.]+% \(\d+ of \d+\) +[\d.]+ ms +\d+/,
    );
  },
);

test('run --udp: a chain without a UDP form, the built-in engine with --parallel, a length past a datagram, a bad rate: one line, exit 2, nothing started', async () => {
  const obfs = [...AES, { name: 'obfs-http' }];
  for (const [cases, extra, message] of [
    [
      [AES, obfs],
      [],
      /^cipherbench: --udp: case 1, ss-base \+ aes-256-gcm \+ obfs-http, has no UDP form \(obfs-http carries TCP only\); leave it out with --filter/,
    ],
    [
      [{ impl: 'shadowsocks-libev', method: 'aes-256-gcm', obfs: 'http' }],
      [],
      /^cipherbench: --udp: case 0, shadowsocks-libev aes-256-gcm \+ simple-obfs http, has no UDP form;/,
    ],
    [
      [AES],
      ['--engine', 'node', '--parallel', '2'],
      /^cipherbench: --udp with the built-in engine sends one stream forward: give it without --parallel, or measure with iperf3/,
    ],
    [
      [AES],
      ['--length', '65500'],
      /^cipherbench: --length 65500: case 0, ss-base \+ aes-256-gcm, adds up to 307 bytes to each datagram, past the 65507 an IPv4 datagram holds; give --length 65200 or less/,
    ],
    [[AES], ['--length', '70000'], /^cipherbench: length must be a whole number of bytes, 16 to 65507; got "70000"/],
    [[AES], ['--length', '8'], /^cipherbench: length must be a whole number of bytes, 16 to 65507/],
    [[AES], ['--rate', '1 gig'], /^cipherbench: --rate must be a rate in bits per second such as 1G/],
  ]) {
    const { code, stdout, stderr, commands } = await runCli([...UDP_RUN, ...extra, ...(await freePortsFlag())], {
      cwd: casesFolder(cases),
    });
    assert.equal(code, 2, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, message);
    assert.equal(stderr.trim().split('\n').length, 1, stderr);
    assert.deepEqual(
      commands.filter((line) => /iperf3|relay|ss-/.test(line)),
      [],
      'nothing started',
    );
  }
});

test('--length and --max-loss without --udp are refused (--rate alone is TCP cost mode)', async () => {
  for (const [extra, message] of [
    [['--length', '1200'], /^cipherbench: --length goes with --udp/],
    [['--max-loss', '1'], /^cipherbench: --max-loss goes with --udp/],
  ]) {
    const { code, stderr } = await runCli(['run', 'cases.json', ...extra, ...(await freePortsFlag())], {
      cwd: casesFolder([AES]),
    });
    assert.equal(code, 2, stderr);
    assert.match(stderr, message);
  }
});

test('--max-loss bisects the offered rate: the highest probe whose loss is at most the bound, the first probe at --rate', async () => {
  // A path that loses everything above 300 Mbit/s and nothing below.
  const lossAbove = (limit) => async (rate) => ({ status: 'ok', udp: { lost_percent: rate > limit ? 40 : 0.5 } });
  const found = await bisectRate(lossAbove(300e6), { rate: 1e9, maxLoss: 1 });
  assert.deepEqual(
    found.udp.maxLoss.probes.map((probe) => probe.rateBps),
    [1e9, 500e6, 250e6, 375e6, 312.5e6, 281.25e6],
  );
  assert.equal(found.udp.maxLoss.rateBps, 281.25e6);
  assert.equal(found.udp.lost_percent, 0.5, 'the figures of the passing run');
  const atOnce = await bisectRate(lossAbove(2e9), { rate: 1e9, maxLoss: 1 });
  assert.deepEqual(atOnce.udp.maxLoss, { percent: 1, rateBps: 1e9, probes: [{ rateBps: 1e9, lost_percent: 0.5 }] });
  const never = await bisectRate(async () => ({ status: 'ok', udp: { lost_percent: 60 } }), { rate: 1e9, maxLoss: 1 });
  assert.equal(never.udp.maxLoss.rateBps, null);
  assert.equal(never.udp.maxLoss.probes.length, BISECTION_PROBES);
  const failed = await bisectRate(async () => ({ status: 'failed', reason: 'relay died' }), { rate: 1e9, maxLoss: 1 });
  assert.equal(failed.reason, 'relay died');
});

test('a case whose runs lost more than their bound says how many and the worst; one within it says nothing', () => {
  const figures = (lost, extra = {}) => ({
    status: 'ok',
    udp: {
      offeredBps: 1e9,
      length: 1200,
      packets: 100,
      lost_packets: lost,
      lost_percent: lost,
      jitter_ms: 0,
      out_of_order: 0,
      lossBound: 1,
      ...extra,
    },
  });
  assert.equal(summariseUdp([figures(0.5), figures(1)]).overBound, null, 'at the bound is within it');
  assert.deepEqual(summariseUdp([figures(0.5), figures(85.2), figures(40)]).overBound, {
    percent: 1,
    runs: 2,
    of: 3,
    lost_percent: 85.2,
    offeredBps: 1e9,
    searched: false,
  });
  const none = figures(3, { offeredBps: 31.25e6, maxLoss: { percent: 1, rateBps: null, probes: [] } });
  assert.deepEqual(summariseUdp([none]).overBound, {
    percent: 1,
    runs: 1,
    of: 1,
    lost_percent: 3,
    offeredBps: 31.25e6,
    searched: true,
  });
});

test("run --udp --max-loss: the case's max rate in the result and the report", { timeout: 120_000 }, async (t) => {
  if (!requirePrograms(t, 'iperf3')) return;
  const { code, stdout, stderr } = await runCli([...UDP_RUN, '--max-loss', '100', ...(await freePortsFlag())], {
    cwd: casesFolder([AES]),
    env: { NO_COLOR: '1' },
  });
  assert.equal(code, 0, stderr);
  const [caseResult] = JSON.parse(stdout).cases;
  assert.deepEqual(caseResult.udp.maxLoss, { percent: 100, rateBps: 20e6 });
  assert.equal(caseResult.runs[0].udp.maxLoss.probes.length, 1);
  assert.match(stderr, /max rate +20(\.0)? Mbits\/sec offered with at most 100% lost/);
});

test(
  'run --udp without --rate searches from 1G down under a 1% bound, and a UDP row has no cipher ceiling',
  { timeout: 180_000 },
  async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const run = ['run', 'cases.json', '--udp', '--duration', '1', '--json', '--no-archive'];
    const { code, stdout, stderr } = await runCli([...run, ...(await freePortsFlag())], {
      cwd: casesFolder([AES]),
      env: { NO_COLOR: '1' },
    });
    assert.equal(code, 0, stderr);
    const {
      options,
      cases: [caseResult],
    } = JSON.parse(stdout);
    assert.deepEqual([options.rate, options.maxLoss, options.rateSearch, options.ceiling], [1e9, 1, true, false]);
    const { probes } = caseResult.runs[0].udp.maxLoss;
    assert.equal(probes[0].rateBps, 1e9, 'the first probe at the top');
    assert.ok(probes.length >= 1 && probes.length <= BISECTION_PROBES);
    // Whether a rate passed is the machine's; what the row then says is not.
    const found = caseResult.udp.maxLoss.rateBps;
    assert.equal(caseResult.udp.overBound === null, found !== null, JSON.stringify(caseResult.udp));
    assert.match(
      stderr,
      found === null ? /above the 1% bound: not ranked/ : /max rate +[\d.]+ [MG]bits\/sec offered with at most 1% lost/,
    );
    assert.equal(caseResult.ceiling, null);
    assert.doesNotMatch(stderr, /efficiency|ceiling/i);
  },
);

test(
  'run --udp --rate far past what a relay pair carries: the row says it lost more than the bound and is not ranked',
  { timeout: 120_000 },
  async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    // At 10 Tbit/s iperf3 sends as fast as it can, some microseconds a
    // datagram, while each of our relays spends tens of microseconds on
    // one: most are dropped at the relay client's socket, and more so on a
    // loaded machine, never fewer.
    const run = ['run', 'cases.json', '--udp', '--rate', '10T', '--duration', '1', '--json', '--no-archive'];
    const { code, stdout, stderr } = await runCli([...run, ...(await freePortsFlag())], {
      cwd: casesFolder([AES]),
      env: { NO_COLOR: '1' },
    });
    assert.equal(code, 0, stderr);
    const {
      options,
      cases: [caseResult],
    } = JSON.parse(stdout);
    assert.deepEqual([options.rate, options.maxLoss, options.rateSearch], [10e12, 1, false]);
    assert.equal(caseResult.runs.length, 1, 'one run at the rate, no search');
    assert.equal(caseResult.udp.maxLoss, null);
    const over = caseResult.udp.overBound;
    assert.ok(over && over.lost_percent > 1, JSON.stringify(caseResult.udp));
    assert.deepEqual([over.percent, over.runs, over.of, over.offeredBps, over.searched], [1, 1, 1, 10e12, false]);
    assert.match(
      stderr,
      /\(not ranked\):\n\n +Case 0, lost [\d.]+% at 10\.0 Tbits\/sec, above the 1% bound: not ranked, /,
    );
    assert.doesNotMatch(stderr, /^ +1: Case 0/m, 'not in the ranking');
  },
);

test('UDP round trips: each datagram timed to its echo, a changed echo fails, a path that answers nothing fails', async () => {
  const echo = await startUdpEchoTarget();
  try {
    const figures = await measureUdpRoundTrips({ port: echo.address.port, count: 200 });
    assert.equal(figures.count + figures.lost, 200);
    assert.ok(figures.p50 > 0 && figures.p50 <= figures.p99 && figures.p99 <= figures.max);
  } finally {
    await echo.close();
  }
  const changer = dgram.createSocket('udp4');
  changer.on('message', (datagram, from) => {
    datagram[datagram.length - 1] ^= 1;
    changer.send(datagram, from.port, from.address);
  });
  await new Promise((resolve) => changer.bind(0, '127.0.0.1', resolve));
  await assert.rejects(
    measureUdpRoundTrips({ port: changer.address().port, count: 10 }),
    /the echo of datagram 0 differs from it/,
  );
  changer.close();
  const silent = dgram.createSocket('udp4');
  await new Promise((resolve) => silent.bind(0, '127.0.0.1', resolve));
  await assert.rejects(
    measureUdpRoundTrips({ port: silent.address().port, count: 200, waitMs: 5 }),
    /100 datagrams through 127\.0\.0\.1:\d+ had no echo within 5 ms/,
  );
  silent.close();
});

test('run --udp --latency: UDP round trips through the relays beside the TCP ones', { timeout: 180_000 }, async (t) => {
  if (!requirePrograms(t, 'iperf3')) return;
  const { code, stdout, stderr } = await runCli([...UDP_RUN, '--latency', ...(await freePortsFlag())], {
    cwd: casesFolder([AES]),
    env: { NO_COLOR: '1' },
  });
  assert.equal(code, 0, stderr);
  const [caseResult] = JSON.parse(stdout).cases;
  const { udpRtt } = caseResult.latency;
  assert.equal(udpRtt.count + udpRtt.lost, 2000);
  assert.ok(udpRtt.p50 > 0 && udpRtt.p50 <= udpRtt.p999);
  assert.match(stderr, /\nudp_rtt +\d+ +[\d.]+ +[\d.]+/);
});
