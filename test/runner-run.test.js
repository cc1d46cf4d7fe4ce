import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { run } from '../lib/index.js';
import { formatHtmlReport } from '../lib/report/html-report.js';
import { formatMarkdownReport } from '../lib/report/markdown-report.js';
import { formatRanking } from '../lib/report/text-report.js';
import { freeRunPorts } from './support/ports.js';
import { assertAllGone, occupyIperf3Server } from './support/process-tree.js';
import { requirePrograms } from './support/programs.js';
import { machineFields, runRecording } from './support/run-recording.js';

// Real relays and a real iperf3 on loopback, on ports of their own so a
// person's benchmark on 1081-1083 is not disturbed. One second per case.
const chain = (name, method) => [{ name: 'ss-base' }, { name, params: { method } }];
const AES_GCM = chain('ss-aead-cipher', 'aes-256-gcm');
const CHACHA = chain('ss-aead-cipher', 'chacha20-ietf-poly1305');
const AES_CTR = chain('ss-stream-cipher', 'aes-128-ctr');

const measured = (side) => {
  assert.deepEqual(Object.keys(side), ['bytes', 'seconds', 'bits_per_second']);
  assert.ok(side.bytes > 0 && side.seconds > 0 && side.bits_per_second > 0, JSON.stringify(side));
};

test(
  'measures each case kept by --filter, at its own index, and leaves no process behind',
  { timeout: 60_000 },
  async (t) => {
    const ports = await freeRunPorts();
    if (!requirePrograms(t, 'iperf3')) return;
    const { result, pids, events } = await runRecording({ ports, cases: [AES_GCM, AES_CTR, CHACHA], filter: 'aead' });

    assert.deepEqual(Object.keys(result), [
      'resultVersion',
      'tool',
      'startedAt',
      'finishedAt',
      'wallSeconds',
      'complete',
      'interrupted',
      'rounds',
      'stopped',
      'noiseFloor',
      'environment',
      'workload',
      'options',
      'warnings',
      'cases',
    ]);
    assert.equal(result.workload, 'bulk');
    assert.deepEqual([result.rounds, result.stopped], [1, null]);
    assert.deepEqual(result.tool, { name: 'cipherbench', version: '0.1.0' });
    assert.equal(result.complete, true);
    assert.equal(result.interrupted, null);
    const { seed, ...options } = result.options;
    assert.ok(Number.isInteger(seed), "the order's seed is recorded");
    assert.deepEqual(options, {
      casesFile: null,
      casesSource: null,
      duration: 1,
      parallel: 1,
      filter: 'aead',
      ports,
      repeat: 1,
      mode: 'default',
      latency: false,
      reverse: false,
      both: false,
      ceiling: false,
      engine: 'iperf3',
      relativeTo: null,
      link: null,
      remote: null,
      confidence: null,
      maxRounds: 30,
      maxTime: null,
      rate: null,
      noiseFloor: 0,
      remeasure: 0,
      profile: null,
      requests: false,
      concurrency: 20,
      responseSize: 2,
      warmup: 0,
      newConnections: false,
      udp: false,
      length: null,
      maxLoss: null,
      rateSearch: false,
    });
    assert.equal(result.noiseFloor, null);
    assert.deepEqual(result.warnings, []);
    assert.match(result.environment.iperf3.path, /iperf3$/);
    assert.deepEqual(
      result.cases.map((c) => c.index),
      [0, 2],
    );
    for (const caseResult of result.cases) {
      assert.deepEqual(Object.keys(caseResult), [
        'index',
        'presets',
        'status',
        'reason',
        'direction',
        'parallel',
        'runs',
        'sender',
        'receiver',
        'unstable',
        'wallSeconds',
        'cost',
        'wire',
        'negotiated',
        'udp',
        'latency',
        'requests',
        'ceiling',
        'disturbed',
        'warnings',
        'relative',
        'width',
        'converged',
      ]);
      assert.equal(caseResult.status, 'ok', caseResult.reason);
      assert.equal(caseResult.reason, null);
      assert.equal(caseResult.runs.length, 1);
      const [only] = caseResult.runs;
      assert.deepEqual(Object.keys(only), [
        'round',
        'status',
        'reason',
        'sender',
        'receiver',
        'wallSeconds',
        'cost',
        'negotiated',
        'disturbance',
        ...machineFields(only),
      ]);
      // What else the machine did: shares of its CPU, the load before, iperf3's own CPU.
      const { loadAverage, idle, steal, others, engineCpu } = only.disturbance;
      assert.ok(
        loadAverage >= 0 && idle >= 0 && idle <= 1 && steal >= 0 && steal <= 1 && others >= 0 && others <= 1,
        JSON.stringify(only.disturbance),
      );
      assert.ok(engineCpu.client > 0 && engineCpu.server > 0, JSON.stringify(engineCpu));
      measured(only.sender);
      measured(only.receiver);
      // One run is its own median, with no spread.
      assert.deepEqual(caseResult.receiver, {
        ...only.receiver,
        min: only.receiver.bits_per_second,
        max: only.receiver.bits_per_second,
        cv: 0,
        low: null,
        high: null,
        level: 0.95,
        coverage: 0,
      });
      assert.deepEqual([caseResult.width, caseResult.converged], [null, null]);
      // A 1 s case and its relays' start and stop: above 1 s, and below 10 s
      // even on a loaded machine (test files run side by side), far from a
      // case run twice or a figure in milliseconds.
      assert.ok(only.wallSeconds > 1 && only.wallSeconds < 10, `wallSeconds ${only.wallSeconds}`);
      assert.equal(caseResult.wallSeconds, only.wallSeconds);
      assert.equal(caseResult.ceiling, null, 'ceiling: false');
    }
    assert.deepEqual(
      events.filter((e) => e.type !== 'process-started').map((e) => `${e.type} ${e.position ?? ''}/${e.total ?? ''}`),
      [
        'run-started /2',
        'case-started 1/2',
        'case-finished 1/2',
        'case-started 2/2',
        'case-finished 2/2',
        'round-finished /',
      ],
    );
    assert.deepEqual(
      events
        .filter((e) => e.type === 'case-finished')
        .map((e) => [e.round, e.rounds, e.last, e.run === e.case.runs[0]]),
      [
        [0, 1, true, true],
        [0, 1, true, true],
      ],
    );
    assert.deepEqual(
      events.filter((e) => e.type === 'process-started' && e.index === 0).map((e) => e.role),
      ['iperf3-server', 'relay-server', 'relay-client', 'iperf3-client'],
    );
    assertAllGone(pids);
  },
);

test(
  'a relay killed mid-case fails that case with the reason; the next case still runs',
  { timeout: 60_000 },
  async (t) => {
    const ports = await freeRunPorts();
    if (!requirePrograms(t, 'iperf3')) return;
    let relayServer;
    const { result, pids } = await runRecording({ ports, cases: [AES_GCM, CHACHA], duration: 2 }, (event) => {
      if (event.type !== 'process-started' || event.index !== 0) return;
      if (event.role === 'relay-server') relayServer = event.pid;
      // Once iperf3 -c is sending, the relay server dies under it.
      if (event.role === 'iperf3-client') setTimeout(() => process.kill(relayServer, 'SIGKILL'), 500);
    });
    const [killed, next] = result.cases;
    assert.equal(killed.status, 'failed');
    assert.equal(killed.sender, null);
    assert.equal(killed.receiver, null);
    assert.match(killed.reason, /^iperf3: .+; relay server was killed by SIGKILL during the test/);
    assert.equal(next.status, 'ok', next.reason);
    assert.equal(result.complete, true);
    assertAllGone(pids);
  },
);

test(
  '--warmup: the same transfer through the same relays first, whose CPU the counted run leaves out',
  { timeout: 60_000 },
  async (t) => {
    const ports = await freeRunPorts();
    if (!requirePrograms(t, 'iperf3')) return;
    const options = { ports, cases: [AES_GCM], rate: '300M' };
    const { result, events, pids } = await runRecording({ ...options, warmup: 2 });
    const cold = await runRecording(options);
    const [warmCase] = result.cases;
    assert.equal(warmCase.status, 'ok', warmCase.reason);
    assert.equal(result.options.warmup, 2);
    assert.equal(cold.result.options.warmup, 0);
    const started = (role) => events.filter((event) => event.type === 'process-started' && event.role === role);
    // Three transfers through one relay pair: the warm-up's two, then the counted one.
    assert.equal(started('iperf3-client').length, 3);
    assert.equal(started('relay-server').length, 1);
    const [warm] = warmCase.runs;
    assert.ok(warm.wallSeconds >= 3, `the run took ${warm.wallSeconds} s: the warm-up's 2 and the counted 1`);
    // The counted second at 300 Mbit/s (37.5 MB), not the warm-up's 2 s besides.
    assert.ok(warm.sender.bytes < 45e6, `${warm.sender.bytes} bytes counted`);
    // Its CPU is that one second's too: no more than a fresh pair spends
    // on its first second (0.23 against 0.25-0.3 CPU s here), where
    // counting the warm-up's as well read 0.74.
    const pairCpu = (run) => run.cost.client.cpuSeconds + run.cost.server.cpuSeconds;
    const [coldRun] = cold.result.cases[0].runs;
    assert.ok(
      pairCpu(warm) < 1.5 * pairCpu(coldRun),
      `after the warm-up ${pairCpu(warm)} CPU s counted, a fresh pair ${pairCpu(coldRun)}`,
    );
    // Every format says so.
    const said = /Each run began with 2 s of traffic through its relays \(--warmup\), not counted/;
    for (const format of [formatRanking, formatMarkdownReport, formatHtmlReport]) assert.match(format(result), said);
    assertAllGone([...pids, ...cold.pids]);
  },
);

test("an iperf3 error fails the case with iperf3's own words", { timeout: 60_000 }, async (t) => {
  const ports = await freeRunPorts();
  if (!requirePrograms(t, 'iperf3')) return;
  // Another client that reaches iperf3 -s first makes it refuse the test
  // that comes through the relays: the same spoiling a readiness probe
  // through the relays would cause, and why the runner never probes.
  let occupying;
  const { result, pids } = await runRecording({ ports, cases: [AES_GCM, CHACHA] }, (event) => {
    if (event.type === 'process-started' && event.index === 0 && event.role === 'iperf3-server') {
      occupying = occupyIperf3Server(ports.target);
    }
  });
  (await occupying).destroy();
  const [refused, next] = result.cases;
  assert.equal(refused.status, 'failed');
  assert.equal(refused.reason, 'iperf3: the server is busy running a test. try again later');
  assert.equal(next.status, 'ok', next.reason);
  assertAllGone(pids);
});

test('a case that never becomes ready times out; the run goes on', { timeout: 60_000 }, async (t) => {
  const ports = await freeRunPorts();
  if (!requirePrograms(t, 'iperf3')) return;
  // A stopped relay neither listens nor exits; it must still be killed. The
  // timeout also bounds the next case's relays, which a loaded CI machine
  // once took over 1.5 s to start, so it is not set tight.
  const { result, pids } = await runRecording({ ports, cases: [AES_GCM, CHACHA], readyTimeout: 5 }, (event) => {
    if (event.type === 'process-started' && event.index === 0 && event.role === 'relay-client')
      process.kill(event.pid, 'SIGSTOP');
  });
  const [stuck, next] = result.cases;
  assert.equal(stuck.status, 'failed');
  assert.match(stuck.reason, /^relay client was not ready within 5 s/);
  assert.equal(next.status, 'ok', next.reason);
  assertAllGone(pids);
});

test(
  'a relay that exits before it is ready fails the case with its last stderr lines',
  { timeout: 60_000 },
  async (t) => {
    const ports = await freeRunPorts();
    if (!requirePrograms(t, 'iperf3')) return;
    // Ports are free when the run starts; someone takes the relay server's
    // between the cases, so the second relay server cannot listen.
    let squatter;
    // Seed 1 orders two cases as the file does: 0, then 1.
    const { result, pids } = await runRecording({ ports, cases: [AES_GCM, CHACHA], seed: 1 }, (event) => {
      if (event.type === 'case-finished' && event.case.index === 0) {
        squatter = net.createServer().listen(ports.server, '127.0.0.1');
      }
    });
    squatter.close();
    const [first, refused] = result.cases;
    assert.equal(first.status, 'ok', first.reason);
    assert.equal(refused.status, 'failed');
    assert.equal(
      refused.reason,
      'relay server exited with code 2 before it was ready\n' +
        `relay server: cipherbench: cannot listen: listen EADDRINUSE: address already in use 127.0.0.1:${ports.server}`,
    );
    assertAllGone(pids);
  },
);

test('aborting stops the running case, skips the rest and marks the run incomplete', { timeout: 90_000 }, async (t) => {
  const ports = await freeRunPorts();
  if (!requirePrograms(t, 'iperf3')) return;
  const controller = new AbortController();
  // Seed 5 orders three cases as the file does: 0, 1, then 2.
  // 10 s a run, so a case that stopped early is told from one that ran out
  // its time even when a loaded machine takes seconds to start its relays.
  const { result, pids } = await runRecording(
    { ports, cases: [AES_GCM, CHACHA, AES_CTR], duration: 10, seed: 5, signal: controller.signal },
    (event) => {
      if (event.type === 'process-started' && event.index === 1 && event.role === 'iperf3-client') {
        setTimeout(() => controller.abort('SIGTERM'), 300);
      }
    },
  );
  assert.equal(result.complete, false);
  assert.equal(result.interrupted, 'SIGTERM');
  assert.deepEqual(
    result.cases.map((c) => c.status),
    ['ok', 'skipped', 'skipped'],
  );
  for (const skipped of result.cases.slice(1)) {
    assert.equal(skipped.reason, 'run interrupted');
    assert.equal(skipped.sender, null);
  }
  assert.ok(result.cases[1].wallSeconds < 8, `the interrupted case stopped early: ${result.cases[1].wallSeconds}`);
  assertAllGone(pids);
});

test('bad input is refused before any process starts', async () => {
  const ports = await freeRunPorts();
  const events = [];
  const onEvent = (event) => events.push(event);
  await assert.rejects(
    run({
      cases: [AES_GCM, [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'x' } }]],
      onEvent,
      ports,
    }),
    {
      exitCode: 2,
      message:
        /^cases file given as cases has 1 problem:\n {2}case 1: presets\[1\]\.params\.method: unknown method "x"/,
    },
  );
  await assert.rejects(run({ cases: [AES_GCM], iperf3Path: '/nowhere/iperf3', onEvent, ports }), {
    exitCode: 2,
    message: /sudo apt-get install iperf3.*brew install iperf3/,
  });
  assert.deepEqual(events, []);
});
