import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { isResult, RESULT_VERSION, upgradeCase, upgradeResult } from '../../lib/result.js';

const read = (url) => JSON.parse(readFileSync(url, 'utf8'));
const FIGURES = new URL('../../docs/figures/', import.meta.url);
// Every archived result the repository keeps: written by earlier versions.
const ARCHIVED = [
  ...readdirSync(FIGURES)
    .filter((name) => name.endsWith('.json'))
    .map((name) => [name, read(new URL(name, FIGURES))]),
  ...['result-v2.json', 'result-v7-link.json', 'result-v7-udp-latency.json'].map((name) => [
    name,
    read(new URL(`../fixtures/${name}`, import.meta.url)),
  ]),
];
// Version 8's camelCase names of the fields cipherbench makes, back to
// version 7's snake_case: a key named here is renamed wherever it is.
const SNAKE_IN_7 = {
  encryptBps: 'encrypt_bps',
  decryptBps: 'decrypt_bps',
  encryptMinBps: 'encrypt_min_bps',
  encryptMaxBps: 'encrypt_max_bps',
  decryptMinBps: 'decrypt_min_bps',
  decryptMaxBps: 'decrypt_max_bps',
  offeredBps: 'offered_bps',
  lossBound: 'loss_bound',
  maxLoss: 'max_loss',
  overBound: 'over_bound',
  rateBps: 'rate_bps',
  payloadBytes: 'payload_bytes',
  udpRtt: 'udp_rtt',
  lostPercent: 'lost_percent',
  delayMs: 'delay_ms',
  jitterMs: 'jitter_ms',
  lossPercent: 'loss_percent',
};
const inVersion7Names = (value) =>
  Array.isArray(value)
    ? value.map(inVersion7Names)
    : value && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).map(([key, v]) => [SNAKE_IN_7[key] ?? key, inVersion7Names(v)]))
      : value;
// The snake_case keys a result keeps: iperf3's, as its JSON names them.
const IPERF3_NAMES = ['bits_per_second', 'lost_packets', 'lost_percent', 'jitter_ms', 'out_of_order'];
const snakeKeys = (value, found = new Set()) => {
  if (Array.isArray(value)) value.forEach((item) => snakeKeys(item, found));
  else if (value && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('_')) found.add(key);
      snakeKeys(item, found);
    }
  return found;
};
const RUN_FIELDS = [
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
];
const OPTION_FIELDS = [
  'casesFile',
  'mode',
  'duration',
  'repeat',
  'seed',
  'confidence',
  'maxRounds',
  'maxTime',
  'noiseFloor',
  'parallel',
  'rate',
  'reverse',
  'both',
  'latency',
  'ceiling',
  'filter',
  'relativeTo',
  'engine',
  'link',
  'remote',
  'ports',
  'requests',
  'concurrency',
  'responseSize',
  'newConnections',
];
const CASE_FIELDS = [
  'index',
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
  'latency',
  'requests',
  'ceiling',
  'relative',
  'warnings',
  'width',
  'converged',
];

test('every archived result upgrades to the current shape, field for field', () => {
  for (const [name, archived] of ARCHIVED) {
    assert.ok(isResult(archived), name);
    const result = upgradeResult(archived);
    assert.equal(result.resultVersion, RESULT_VERSION, name);
    assert.deepEqual(
      RUN_FIELDS.filter((field) => !(field in result)),
      [],
      name,
    );
    assert.deepEqual(
      OPTION_FIELDS.filter((field) => !(field in result.options)),
      [],
      name,
    );
    for (const caseResult of result.cases) {
      assert.deepEqual(
        CASE_FIELDS.filter((field) => !(field in caseResult)),
        [],
        `${name} case ${caseResult.index}`,
      );
      for (const side of [caseResult.sender, caseResult.receiver].filter(Boolean)) {
        assert.deepEqual(
          ['min', 'max', 'cv'].filter((field) => typeof side[field] !== 'number'),
          [],
          `${name} case ${caseResult.index}`,
        );
        assert.deepEqual(
          ['low', 'high', 'level', 'coverage'].filter((field) => !(field in side)),
          [],
          `${name} case ${caseResult.index}`,
        );
      }
    }
    // What the file had stays as it was, under version 7's and 8's names.
    const inVersion6Names = ({ round, negotiated, ...run }) => ({
      repeat: round,
      ...run,
      ...(negotiated === undefined ? {} : { transport: negotiated }),
    });
    assert.deepEqual(
      result.cases.map((caseResult) =>
        inVersion7Names(caseResult.runs).map((run) => (archived.resultVersion >= 7 ? run : inVersion6Names(run))),
      ),
      archived.cases.map((caseResult) => caseResult.runs),
      name,
    );
  }
});

test('a current result comes back as it is; upgrading twice is upgrading once', () => {
  const once = upgradeResult(ARCHIVED.at(-1)[1]);
  assert.equal(upgradeResult(once), once);
});

test('a result from before repeats: its case is its one run, a skipped case has none, what it lacks means "not measured"', () => {
  const measured = { bits_per_second: 3e9, bytes: 1, seconds: 3 };
  const old = {
    tool: { name: 'cipherbench', version: '0.1.0' },
    options: { duration: 3, parallel: 2, filter: null },
    cases: [
      {
        index: 0,
        presets: [{ name: 'ss-base' }],
        status: 'ok',
        reason: null,
        sender: measured,
        receiver: measured,
        wallSeconds: 3.4,
      },
      {
        index: 1,
        presets: [{ name: 'ss-base' }],
        status: 'skipped',
        reason: 'legacy',
        sender: null,
        receiver: null,
        wallSeconds: 0,
      },
    ],
  };
  const result = upgradeResult(old);
  const [ok, skipped] = result.cases;
  assert.deepEqual(ok.runs, [
    { round: 0, status: 'ok', reason: null, sender: measured, receiver: measured, wallSeconds: 3.4, cost: null },
  ]);
  assert.deepEqual(ok.receiver, {
    ...measured,
    min: 3e9,
    max: 3e9,
    cv: 0,
    low: null,
    high: null,
    level: null,
    coverage: null,
  });
  assert.equal(ok.parallel, 2);
  assert.equal(ok.direction, 'forward');
  assert.deepEqual(
    [ok.cost, ok.wire, ok.udp, ok.latency, ok.requests, ok.ceiling, ok.relative, ok.unstable, ok.warnings],
    [null, null, null, null, null, null, null, false, []],
  );
  assert.deepEqual(skipped.runs, []);
  assert.deepEqual(result.options, {
    duration: 3,
    parallel: 2,
    filter: null,
    repeat: 1,
    mode: null,
    latency: false,
    reverse: false,
    both: false,
    ceiling: false,
    engine: null,
    relativeTo: null,
    link: null,
    remote: null,
    seed: null,
    confidence: null,
    maxRounds: null,
    maxTime: null,
    rate: null,
    noiseFloor: null,
    remeasure: 0,
    requests: false,
    concurrency: null,
    responseSize: null,
    warmup: null,
    newConnections: false,
    udp: false,
    length: null,
    maxLoss: null,
    rateSearch: false,
    profile: null,
  });
  assert.deepEqual([result.rounds, result.stopped, ok.width, ok.converged, ok.disturbed], [1, null, null, null, null]);
  assert.deepEqual(result.warnings, []);
  assert.equal(old.resultVersion, undefined, 'the given object is left alone');
  assert.deepEqual(upgradeCase(ok), ok);
});

test('a result from a newer cipherbench is refused, not misread', () => {
  assert.throws(
    () => upgradeResult({ resultVersion: RESULT_VERSION + 1, cases: [] }),
    (error) => error.exitCode === 2 && /newer than this cipherbench reads/.test(error.message),
  );
});

test('a version 1 result keeps its figures and its unpaired ratio; what it did not compute is null', () => {
  const side = { bytes: 1, seconds: 1, bits_per_second: 2e9, min: 1e9, max: 3e9, cv: 0.5 };
  const run = { repeat: 0, status: 'ok', reason: null, sender: side, receiver: side, wallSeconds: 1, cost: null };
  const v1 = {
    resultVersion: 1,
    options: { repeat: 2, relativeTo: '0' },
    cases: [
      {
        index: 0,
        presets: [],
        status: 'ok',
        runs: [run, { ...run, repeat: 1 }],
        sender: side,
        receiver: side,
        relative: { to: 0, ratio: 0.8 },
      },
    ],
  };
  const [caseResult] = upgradeResult(v1).cases;
  assert.deepEqual(caseResult.relative, { to: 0, ratio: 0.8, low: null, high: null, level: null, rounds: null });
  assert.deepEqual(caseResult.receiver, { ...side, low: null, high: null, level: null, coverage: null });
  assert.equal(upgradeResult(v1).rounds, 2);
  assert.deepEqual(
    caseResult.runs.map((run) => [run.round, 'repeat' in run]),
    [
      [0, false],
      [1, false],
    ],
  );
});

test('a version 4 UDP result: only --max-loss searched, no row was judged by a bound, and a UDP row keeps no TCP ceiling', () => {
  const side = { bytes: 1, seconds: 1, bits_per_second: 150e6, min: 150e6, max: 150e6, cv: 0 };
  const udp = {
    offered_bps: 1e9,
    length: 1200,
    packets: 100,
    lost_packets: 85,
    lost_percent: 85,
    jitter_ms: 0.1,
    out_of_order: 0,
    max_loss: null,
  };
  const ceiling = { encrypt_bps: 3.5e9, decrypt_bps: 3.6e9, size: 16384, efficiency: 0.04 };
  const v4 = (maxLoss) => ({
    resultVersion: 4,
    options: { udp: true, rate: 1e9, length: 1200, maxLoss },
    cases: [{ index: 0, presets: [], status: 'ok', runs: [], sender: side, receiver: side, udp, ceiling }],
  });
  const fixed = upgradeResult(v4(null));
  assert.equal(fixed.options.rateSearch, false);
  assert.equal(fixed.cases[0].udp.overBound, null);
  assert.deepEqual(
    [fixed.cases[0].udp.offeredBps, fixed.cases[0].udp.maxLoss, 'offered_bps' in fixed.cases[0].udp],
    [1e9, null, false],
  );
  assert.equal(fixed.cases[0].ceiling, null);
  assert.equal(upgradeResult(v4(1)).options.rateSearch, true);
  assert.deepEqual(upgradeCase(fixed.cases[0]).udp, fixed.cases[0].udp);
});

test('a version 5 result gains the workload its options name: requests, UDP, else a bulk stream', () => {
  const v5 = (options) => ({ resultVersion: 5, options, cases: [] });
  assert.equal(upgradeResult(v5({ requests: true, udp: false })).workload, 'requests');
  assert.equal(upgradeResult(v5({ requests: false, udp: true })).workload, 'udp');
  assert.equal(upgradeResult(v5({ requests: false, udp: false, rate: 1e9 })).workload, 'bulk');
  assert.deepEqual(upgradeResult(v5({ udp: true })), {
    resultVersion: RESULT_VERSION,
    options: { udp: true },
    cases: [],
    workload: 'udp',
  });
  // From before --udp and --requests: a bulk stream.
  assert.equal(upgradeResult({ options: { duration: 3, parallel: 1 }, cases: [] }).workload, 'bulk');
  const udp = ARCHIVED.find(([name]) => name === 'today-udp-200M.json')[1];
  assert.deepEqual([udp.resultVersion, udp.workload, upgradeResult(udp).workload], [5, undefined, 'udp']);
});

test("a version 6 result, archived: each run's repeat is its round, its transport what was negotiated, and nothing else moves", () => {
  const v6 = ARCHIVED.find(([name]) => name === 'transports.json')[1];
  assert.equal(v6.resultVersion, 6);
  const upgraded = upgradeResult(v6);
  assert.equal(upgraded.resultVersion, RESULT_VERSION);
  upgraded.cases.forEach((caseResult, at) => {
    const archived = v6.cases[at];
    assert.deepEqual(
      caseResult.runs.map(({ round, negotiated, ...rest }) => ({
        repeat: round,
        ...rest,
        ...(negotiated === undefined ? {} : { transport: negotiated }),
      })),
      archived.runs,
    );
    assert.deepEqual([caseResult.negotiated, 'transport' in caseResult], [archived.transport, false]);
    assert.deepEqual(
      caseResult.runs.map((run) => run.round),
      archived.runs.map((run) => run.repeat),
    );
  });
  assert.deepEqual(upgradeResult(upgraded), upgraded);
  assert.deepEqual(upgradeCase(upgraded.cases[0]), upgraded.cases[0]);
});

test("a version 7 result, archived: the fields cipherbench makes are camelCase, iperf3's keep their names, each value where it was", () => {
  for (const name of ['result-v7-link.json', 'result-v7-udp-latency.json']) {
    const v7 = ARCHIVED.find(([file]) => file === name)[1];
    assert.equal(v7.resultVersion, 7, name);
    const upgraded = upgradeResult(v7);
    assert.equal(upgraded.resultVersion, RESULT_VERSION, name);
    // Only the names moved: named back, the cases and the link are the file's.
    assert.deepEqual(inVersion7Names(upgraded.cases), v7.cases, name);
    assert.deepEqual(inVersion7Names(upgraded.options.link), v7.options.link, name);
    assert.deepEqual([...snakeKeys([upgraded.cases, upgraded.options.link])].sort(), [...IPERF3_NAMES].sort(), name);
    assert.deepEqual(upgradeResult(upgraded), upgraded, name);
    assert.deepEqual(upgradeCase(upgraded.cases[0]), upgraded.cases[0], name);
  }
  const across = upgradeResult(ARCHIVED.find(([file]) => file === 'result-v7-link.json')[1]);
  assert.deepEqual(across.options.link, {
    name: 'rate=100mbit',
    rateBps: 100e6,
    delayMs: null,
    jitterMs: null,
    lossPercent: null,
  });
  const [run] = across.cases[0].runs;
  assert.ok(run.wire.payloadBytes > 0 && run.wire.bytes > run.wire.payloadBytes, JSON.stringify(run.wire));
  assert.deepEqual(run.udp.maxLoss.probes, [{ rateBps: 20e6, lost_percent: run.udp.lost_percent }]);
  const [echoed] = upgradeResult(ARCHIVED.find(([file]) => file === 'result-v7-udp-latency.json')[1]).cases;
  assert.deepEqual(
    [echoed.udp.offeredBps, echoed.udp.maxLoss, echoed.udp.overBound],
    [20e6, { percent: 1, rateBps: 20e6 }, null],
  );
  assert.ok(echoed.latency.udpRtt.count > 0 && typeof echoed.latency.udpRtt.lostPercent === 'number');
});

test("a version 6 result's ceilings, archived: their figures are camelCase, each value where it was", () => {
  const v6 = ARCHIVED.find(([name]) => name === 'mux-new-connections.json')[1];
  const upgraded = upgradeResult(v6);
  const ceilings = v6.cases.filter((caseResult) => caseResult.ceiling);
  assert.ok(ceilings.length > 0);
  for (const archived of ceilings) {
    const { ceiling } = upgraded.cases.find(
      (caseResult) => caseResult.index === archived.index && caseResult.direction === archived.direction,
    );
    assert.deepEqual(inVersion7Names(ceiling), archived.ceiling);
    assert.deepEqual(
      [ceiling.encryptBps, ceiling.decryptBps, ceiling.encryptMinBps, ceiling.decryptMaxBps],
      [
        archived.ceiling.encrypt_bps,
        archived.ceiling.decrypt_bps,
        archived.ceiling.encrypt_min_bps,
        archived.ceiling.decrypt_max_bps,
      ],
    );
  }
});
