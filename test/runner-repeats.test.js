import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median } from '../lib/statistics/summaries.js';
import { freeRunPorts } from './support/ports.js';
import { assertAllGone } from './support/process-tree.js';
import { requirePrograms } from './support/programs.js';
import { runRecording } from './support/run-recording.js';

// Repeats, directions, cost and ceiling through real relays and iperf3, on
// ports no other test uses. One second a run.
const chain = (name, method) => [{ name: 'ss-base' }, { name, params: { method } }];
const AES_GCM = chain('ss-aead-cipher', 'aes-128-gcm');
const CHACHA = chain('ss-aead-cipher', 'chacha20-ietf-poly1305');
const AES_CTR = chain('ss-stream-cipher', 'aes-128-ctr');
const AES_256_GCM = chain('ss-aead-cipher', 'aes-256-gcm');

const started = (events) =>
  events.filter((e) => e.type === 'case-started').map((e) => `${e.case.index}${e.case.direction[0]}${e.round}`);

test(
  '--repeat 2 interleaves the cases, keeps every run and summarises them; cost and ceiling per case',
  { timeout: 60_000 },
  async (t) => {
    const ports = await freeRunPorts();
    if (!requirePrograms(t, 'iperf3')) return;
    const { result, events, pids } = await runRecording({ ports, cases: [AES_GCM, CHACHA], repeat: 2, ceiling: true });
    // Round by round, each in its own random order.
    assert.deepEqual(
      started(events)
        .map((run) => run.slice(1))
        .join(' '),
      'f0 f0 f1 f1',
    );
    assert.deepEqual(
      started(events)
        .slice(0, 2)
        .map((run) => run[0])
        .sort(),
      ['0', '1'],
    );
    assert.deepEqual(
      started(events)
        .slice(2)
        .map((run) => run[0])
        .sort(),
      ['0', '1'],
    );
    const [{ cases, total }] = events.filter((e) => e.type === 'run-started');
    assert.deepEqual({ cases, total }, { cases: 2, total: 4 });
    // Both ceilings come first, before any relay runs.
    const kinds = events.filter((e) => e.type === 'ceiling-started' || e.type === 'case-started').map((e) => e.type);
    assert.deepEqual(kinds, [
      'ceiling-started',
      'ceiling-started',
      'case-started',
      'case-started',
      'case-started',
      'case-started',
    ]);
    // A case is complete after its last repeat, and only then.
    assert.deepEqual(
      events.filter((e) => e.type === 'case-finished').map((e) => [e.last, e.case.runs.length]),
      [
        [false, 1],
        [false, 1],
        [true, 2],
        [true, 2],
      ],
    );
    assert.equal(result.options.repeat, 2);

    for (const caseResult of result.cases) {
      assert.equal(caseResult.status, 'ok', caseResult.reason);
      assert.equal(caseResult.direction, 'forward');
      assert.equal(caseResult.parallel, 1);
      assert.deepEqual(
        caseResult.runs.map((r) => [r.round, r.status]),
        [
          [0, 'ok'],
          [1, 'ok'],
        ],
      );
      const bitrates = caseResult.runs.map((r) => r.receiver.bits_per_second);
      assert.equal(caseResult.receiver.bits_per_second, median(bitrates));
      assert.equal(caseResult.receiver.min, Math.min(...bitrates));
      assert.equal(caseResult.receiver.max, Math.max(...bitrates));
      assert.ok(caseResult.receiver.cv >= 0 && caseResult.receiver.cv < 1);
      assert.equal(caseResult.unstable, caseResult.receiver.cv > 0.1);
      assert.equal(caseResult.wallSeconds, caseResult.runs[0].wallSeconds + caseResult.runs[1].wallSeconds);

      for (const runResult of caseResult.runs) {
        for (const relay of ['client', 'server']) {
          const cost = runResult.cost[relay];
          // Both relays encrypt or decrypt everything iperf3 sent: a relay
          // cannot carry a GB in less than a tenth of a CPU second here, and
          // start-up (0.15 s or so) is not counted.
          assert.ok(cost.cpuSeconds > 0.05 && cost.cpuSeconds < 3, `${relay} cpuSeconds ${cost.cpuSeconds}`);
          assert.ok(cost.peakRssBytes > 20e6 && cost.peakRssBytes < 1e9, `${relay} peakRssBytes ${cost.peakRssBytes}`);
        }
      }
      const perGB = (relay) => median(caseResult.runs.map((r) => r.cost[relay].cpuSeconds / (r.receiver.bytes / 1e9)));
      assert.equal(caseResult.cost.client.cpuSecondsPerGB, perGB('client'));
      assert.equal(caseResult.cost.server.cpuSecondsPerGB, perGB('server'));

      const { ceiling } = caseResult;
      assert.deepEqual(Object.keys(ceiling), [
        'encryptBps',
        'decryptBps',
        'size',
        'rounds',
        'encryptMinBps',
        'encryptMaxBps',
        'decryptMinBps',
        'decryptMaxBps',
        'efficiency',
      ]);
      assert.equal(ceiling.size, 65536);
      assert.ok(ceiling.encryptBps > 1e8 && ceiling.decryptBps > 1e8, JSON.stringify(ceiling));
      assert.equal(
        ceiling.efficiency,
        caseResult.receiver.bits_per_second / Math.min(ceiling.encryptBps, ceiling.decryptBps),
      );
      assert.deepEqual(caseResult.warnings, []);
    }
    assertAllGone(pids);
  },
);

test(
  '--reverse runs iperf3 -R; --both each case forward then reverse, interleaved with the repeats',
  { timeout: 60_000 },
  async (t) => {
    const ports = await freeRunPorts();
    if (!requirePrograms(t, 'iperf3')) return;
    const commands = [];
    const recordClient = (event) => {
      if (event.type === 'process-started' && event.role === 'iperf3-client') commands.push(event.command);
    };
    const reverse = await runRecording({ ports, cases: [AES_GCM], reverse: true }, recordClient);
    assert.deepEqual(
      reverse.result.cases.map((c) => [c.index, c.direction, c.status]),
      [[0, 'reverse', 'ok']],
    );
    assert.equal(reverse.result.options.reverse, true);
    assert.ok(commands[0].includes('-R'), commands[0].join(' '));

    const both = await runRecording(
      { ports, cases: [AES_GCM, AES_CTR], filter: 'ctr', both: true, repeat: 2 },
      recordClient,
    );
    assert.deepEqual(started(both.events), ['1f0', '1r0', '1f1', '1r1']);
    assert.deepEqual(
      both.result.cases.map((c) => [c.index, c.direction, c.status, c.runs.length]),
      [
        [1, 'forward', 'ok', 2],
        [1, 'reverse', 'ok', 2],
      ],
    );
    assert.equal(both.result.options.both, true);
    assert.deepEqual(
      commands.slice(1).map((args) => args.includes('-R')),
      [false, true, false, true],
    );
    for (const caseResult of both.result.cases)
      assert.ok(caseResult.receiver.bytes > 0 && caseResult.cost.client.cpuSeconds > 0);
    assertAllGone([...reverse.pids, ...both.pids]);
  },
);

test('--smoke: the first 3 selected cases, 1 s, once; recorded as the mode', { timeout: 60_000 }, async (t) => {
  const ports = await freeRunPorts();
  if (!requirePrograms(t, 'iperf3')) return;
  const { result } = await runRecording({
    ports,
    cases: [AES_GCM, CHACHA, AES_CTR, AES_256_GCM],
    mode: 'smoke',
    duration: undefined,
  });
  assert.equal(result.options.mode, 'smoke');
  assert.equal(result.options.duration, 1);
  assert.equal(result.options.repeat, 1);
  assert.deepEqual(
    result.cases.map((c) => [c.index, c.status, c.runs.length]),
    [
      [0, 'ok', 1],
      [1, 'ok', 1],
      [2, 'ok', 1],
    ],
  );
});

test(
  '--latency: once per case, through the same relays, with an echo target in place of iperf3 -s',
  { timeout: 60_000 },
  async (t) => {
    const ports = await freeRunPorts();
    if (!requirePrograms(t, 'iperf3')) return;
    const { result, events, pids } = await runRecording({ ports, cases: [AES_GCM], repeat: 2, latency: true });
    const roles = events.filter((e) => e.type === 'process-started').map((e) => e.role);
    assert.deepEqual(roles, [
      'iperf3-server',
      'relay-server',
      'relay-client',
      'iperf3-client',
      'echo-target',
      'iperf3-server',
      'relay-server',
      'relay-client',
      'iperf3-client',
    ]);
    const [caseResult] = result.cases;
    assert.equal(result.options.latency, true);
    assert.equal(caseResult.status, 'ok', caseResult.reason);
    assert.deepEqual(Object.keys(caseResult.latency), ['rtt', 'connect']);
    assert.deepEqual([caseResult.latency.rtt.count, caseResult.latency.connect.count], [2000, 200]);
    for (const figures of Object.values(caseResult.latency)) {
      assert.equal(figures.unit, 'ms');
      assert.ok(
        figures.p50 > 0 &&
          figures.p50 <= figures.p90 &&
          figures.p90 <= figures.p99 &&
          figures.p99 <= figures.p999 &&
          figures.p999 <= figures.max,
        JSON.stringify(figures),
      );
    }
    assert.deepEqual(caseResult.warnings, []);
    assertAllGone(pids);
  },
);

test('a latency probe that cannot run leaves the bitrate ok and says why', { timeout: 60_000 }, async (t) => {
  const ports = await freeRunPorts();
  if (!requirePrograms(t, 'iperf3')) return;
  const { result, pids } = await runRecording({ ports, cases: [AES_GCM], latency: true }, (event) => {
    if (event.type === 'process-started' && event.role === 'echo-target') process.kill(event.pid, 'SIGKILL');
  });
  const [caseResult] = result.cases;
  assert.equal(caseResult.status, 'ok', caseResult.reason);
  assert.equal(caseResult.latency, null);
  assert.deepEqual(caseResult.warnings, ['no latency: echo target was killed by SIGKILL before it was ready']);
  assertAllGone(pids);
});
