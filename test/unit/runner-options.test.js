import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeOptions, parsePorts } from '../../lib/runner/run-options.js';
import { WORKLOADS } from '../../lib/workload/index.js';

test('defaults', () => {
  const { seed, ...settings } = normalizeOptions({});
  // No workload's option is set: the run measures a bulk stream.
  const workloadOptions = WORKLOADS.flatMap(({ option }) => (option ? [[option.name, false]] : []));
  // A fresh seed each run, recorded so the order can be replayed.
  assert.ok(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 32, String(seed));
  assert.deepEqual(settings, {
    mode: 'default',
    duration: 1,
    parallel: 1,
    repeat: 3,
    confidence: null,
    maxRounds: 30,
    maxTime: null,
    rate: null,
    noiseFloor: 3,
    remeasure: 2,
    filter: null,
    relativeTo: null,
    engine: 'auto',
    ports: { client: 1081, server: 1082, target: 1083 },
    readyTimeout: 10,
    latency: false,
    concurrency: 20,
    responseSize: 2,
    warmup: 0,
    newConnections: false,
    reverse: false,
    both: false,
    ceiling: true,
    length: null,
    maxLoss: null,
    rateSearch: false,
    link: null,
    remote: null,
    caseLimit: null,
    profile: null,
    ...Object.fromEntries(workloadOptions),
  });
});

test('the request workload: its options, and each mistake in one line', () => {
  const pick = ({ requests, concurrency, responseSize, warmup, newConnections }) => ({
    requests,
    concurrency,
    responseSize,
    warmup,
    newConnections,
  });
  assert.deepEqual(
    pick(
      normalizeOptions({ requests: true, concurrency: '50', responseSize: '1024', warmup: '0', newConnections: true }),
    ),
    { requests: true, concurrency: 50, responseSize: 1024, warmup: 0, newConnections: true },
  );
  const mistakes = [
    [{ requests: true, concurrency: '0' }, /^concurrency must be a whole number of clients, 1 to 4096; got "0"$/],
    [{ requests: true, concurrency: '2.5' }, /^concurrency must be a whole number/],
    [{ requests: true, responseSize: '-1' }, /^response-size must be a whole number of bytes, 0 to 67108864/],
    [{ requests: true, engine: 'iperf3' }, /^--requests runs its own HTTP clients, not iperf3: drop --engine iperf3$/],
    [{ concurrency: '5' }, /^--concurrency goes with --requests$/],
    [{ newConnections: true }, /^--new-connections goes with --requests$/],
    [{ responseSize: '5' }, /^--response-size goes with --requests$/],
    [{ requests: true, warmup: '61' }, /^warmup must be a whole number of seconds, 0 to 60/],
  ];
  for (const [options, message] of mistakes) {
    assert.throws(
      () => normalizeOptions(options),
      (error) => error.exitCode === 2 && message.test(error.message),
      JSON.stringify(options),
    );
  }
});

test("with --requests, a bulk stream's and UDP's options are refused saying why, not dropped", () => {
  const refused = [
    [{ requests: true, udp: true, rate: '10M' }, /^--udp measures datagrams \(iperf3 -u\), not requests: drop it/],
    [{ requests: true, udp: true, mode: 'smoke' }, /^--udp measures datagrams/],
    [{ requests: true, rate: '10M' }, /^--rate paces iperf3 \(-b\)/],
    [{ requests: true, parallel: '2' }, /^--parallel sets iperf3's parallel streams \(-P\)/],
    [{ requests: true, parallel: 1 }, /^--parallel /],
    [{ requests: true, reverse: true }, /^--reverse turns a bulk stream around/],
    [{ requests: true, both: true }, /^--both measures a bulk stream both ways/],
    [{ requests: true, latency: true }, /^--latency times round trips beside a bulk stream/],
    [{ requests: true, length: '1000' }, /^--length sizes UDP datagrams/],
    [{ requests: true, maxLoss: '5' }, /^--max-loss bounds a UDP rate's loss/],
    [{ requests: true, rateSearch: true }, /^rateSearch searches a UDP rate/],
  ];
  for (const [options, message] of refused) {
    assert.throws(
      () => normalizeOptions(options),
      (error) => error.exitCode === 2 && message.test(error.message) && !error.message.includes('\n'),
      JSON.stringify(options),
    );
  }
  // false asks for what a request run does anyway; --full's latency is the
  // mode's, not asked for.
  for (const options of [{ reverse: false, latency: false, both: false, udp: false }, { mode: 'full' }])
    assert.equal(normalizeOptions({ requests: true, ...options }).requests, true, JSON.stringify(options));
  assert.equal(normalizeOptions({ parallel: '2' }).parallel, 2, 'a bulk run keeps them');
});

test('--warmup: a transfer has none unless asked; the request workload 3 s, 1 with --smoke', () => {
  assert.equal(normalizeOptions({}).warmup, 0);
  assert.equal(normalizeOptions({ warmup: '2' }).warmup, 2);
  assert.equal(normalizeOptions({ udp: true, warmup: '1' }).warmup, 1);
  assert.equal(normalizeOptions({ requests: true }).warmup, 3);
  assert.equal(normalizeOptions({ requests: true, mode: 'smoke' }).warmup, 1);
  assert.equal(normalizeOptions({ requests: true, mode: 'full' }).warmup, 3);
  assert.equal(normalizeOptions({ mode: 'full' }).warmup, 0);
  assert.throws(
    () => normalizeOptions({ warmup: '61' }),
    (error) => error.exitCode === 2 && /^warmup must be a whole number of seconds, 0 to 60/.test(error.message),
  );
});

test('--udp: the offered rate and datagram length, with defaults, and refused without --udp or out of range', () => {
  const pick = ({ udp, rate, length }) => ({ udp, rate, length });
  assert.deepEqual(pick(normalizeOptions({ udp: true })), { udp: true, rate: 1e9, length: 1200 });
  assert.deepEqual(pick(normalizeOptions({ udp: true, rate: '250M', length: '1400' })), {
    udp: true,
    rate: 250e6,
    length: 1400,
  });
  assert.deepEqual(pick(normalizeOptions({ udp: true, rate: '1.5g' })), { udp: true, rate: 1.5e9, length: 1200 });
  assert.equal(normalizeOptions({ udp: true, maxLoss: '0.5' }).maxLoss, 0.5);
  for (const [options, message] of [
    [{ udp: true, rate: 'fast' }, /^--rate must be a rate in bits per second such as 1G/],
    [{ udp: true, rate: '0' }, /^--rate must be a rate/],
    [{ udp: true, rate: '1X' }, /^--rate must be a rate/],
    [{ udp: true, length: 65_508 }, /^length must be a whole number of bytes, 16 to 65507/],
    [{ udp: true, length: 15 }, /^length must be a whole number of bytes, 16 to 65507/],
    [{ length: 1200 }, /^--length goes with --udp/],
    [{ maxLoss: 1 }, /^--max-loss goes with --udp/],
    [{ udp: true, maxLoss: '101' }, /^--max-loss must be a percentage from 0 to 100, got "101"/],
    [{ udp: true, maxLoss: '-1' }, /^--max-loss must be a percentage/],
    [{ udp: true, maxLoss: 'some' }, /^--max-loss must be a percentage/],
  ]) {
    assert.throws(
      () => normalizeOptions(options),
      (error) => error.exitCode === 2 && message.test(error.message),
      JSON.stringify(options),
    );
  }
});

test('--udp alone searches the rate up to 1G under a 1% bound; --rate alone is one run there, still judged by the bound; --rate with --max-loss searches up to it', () => {
  const pick = ({ rate, maxLoss, rateSearch, ceiling }) => ({ rate, maxLoss, rateSearch, ceiling });
  assert.deepEqual(pick(normalizeOptions({ udp: true })), { rate: 1e9, maxLoss: 1, rateSearch: true, ceiling: false });
  assert.deepEqual(pick(normalizeOptions({ udp: true, maxLoss: '5' })), {
    rate: 1e9,
    maxLoss: 5,
    rateSearch: true,
    ceiling: false,
  });
  assert.deepEqual(pick(normalizeOptions({ udp: true, rate: '200M' })), {
    rate: 200e6,
    maxLoss: 1,
    rateSearch: false,
    ceiling: false,
  });
  assert.deepEqual(pick(normalizeOptions({ udp: true, rate: '200M', maxLoss: 2 })), {
    rate: 200e6,
    maxLoss: 2,
    rateSearch: true,
    ceiling: false,
  });
  // The API may say which it wants; over TCP there is nothing to search.
  assert.equal(normalizeOptions({ udp: true, rateSearch: false }).rateSearch, false);
  assert.deepEqual(pick(normalizeOptions({ rate: '1G' })), {
    rate: 1e9,
    maxLoss: null,
    rateSearch: false,
    ceiling: true,
  });
  assert.throws(
    () => normalizeOptions({ rateSearch: true }),
    (error) => error.exitCode === 2 && /^rateSearch goes with --udp/.test(error.message),
  );
});

test('a mode sets duration, repeat, latency and how many cases; explicit options win', () => {
  const pick = ({ mode, duration, repeat, latency, caseLimit }) => ({ mode, duration, repeat, latency, caseLimit });
  assert.deepEqual(pick(normalizeOptions({ mode: 'smoke' })), {
    mode: 'smoke',
    duration: 1,
    repeat: 1,
    latency: false,
    caseLimit: 3,
  });
  assert.deepEqual(pick(normalizeOptions({ mode: 'default' })), {
    mode: 'default',
    duration: 1,
    repeat: 3,
    latency: false,
    caseLimit: null,
  });
  assert.deepEqual(pick(normalizeOptions({ mode: 'full' })), {
    mode: 'full',
    duration: 5,
    repeat: 3,
    latency: true,
    caseLimit: null,
  });
  assert.deepEqual(pick(normalizeOptions({ mode: 'full', duration: '2', repeat: '5', latency: false })), {
    mode: 'full',
    duration: 2,
    repeat: 5,
    latency: false,
    caseLimit: null,
  });
  assert.deepEqual(pick(normalizeOptions({ mode: 'smoke', repeat: 2, latency: true })), {
    mode: 'smoke',
    duration: 1,
    repeat: 2,
    latency: true,
    caseLimit: 3,
  });
});

test('the CLI gives text, the API numbers: both read the same', () => {
  const fromCli = normalizeOptions({
    duration: '2',
    parallel: '4',
    ports: '2001,2002,2003',
    seed: '7',
    confidence: '99,2.5',
    maxTime: '60',
    rate: '1.5G',
  });
  const fromApi = normalizeOptions({
    duration: 2,
    parallel: 4,
    ports: { client: 2001, server: 2002, target: 2003 },
    seed: 7,
    confidence: '99,2.5',
    maxTime: 60,
    rate: 1.5e9,
  });
  assert.deepEqual(fromCli, fromApi);
});

test('bad values say what is wanted and what was given', () => {
  const bad = [
    [{ duration: 0.5 }, /^duration must be a whole number of seconds, 1 or more; got 0\.5$/],
    [{ duration: 'x' }, /duration must be a whole number/],
    [{ parallel: 129 }, /parallel must be a whole number of streams, 1 to 128; got 129/],
    [{ filter: '' }, /filter must be/],
    [{ relativeTo: '' }, /^relativeTo must be a case index or some text from one case, got ""$/],
    [{ engine: 'netperf' }, /^engine must be one of auto, iperf3, node, wrk, got "netperf"$/],
    [
      { engine: 'wrk' },
      /^--engine wrk loads the request workload: add --requests, or measure a bulk stream with --engine iperf3 or node$/,
    ],
    [{ readyTimeout: 0 }, /readyTimeout must be a positive number/],
    [{ repeat: 0 }, /^repeat must be a whole number of rounds, 1 to 100; got 0$/],
    [{ mode: 'quick' }, /^mode must be one of smoke, default, full, got "quick"$/],
    [{ reverse: true, both: true }, /not the two together/],
    [{ latency: 'yes' }, /^latency must be true or false/],
    [{ ports: '1,2' }, /--ports must be three port numbers/],
    [{ ports: '1081,1081,1083' }, /must differ/],
    [{ ports: { client: 70000, server: 1, target: 2 } }, /the client port must be a whole number from 1 to 65535/],
    [
      { confidence: '49,5' },
      /^--confidence takes LEVEL,WIDTH in percent: a level from 50 to 99\.9 and a width above 0, e\.g\. 95,5; got "49,5"$/,
    ],
    [{ confidence: '100,5' }, /^--confidence takes LEVEL,WIDTH/],
    [{ confidence: '95,0' }, /^--confidence takes LEVEL,WIDTH/],
    [{ confidence: '95' }, /^--confidence takes LEVEL,WIDTH/],
    [{ maxRounds: '0' }, /^--max-rounds must be a whole number of rounds, 1 to 100; got "0"$/],
    [{ maxRounds: 2, repeat: 3 }, /^--max-rounds \(2\) must be at least --repeat \(3\)$/],
    [{ maxTime: '0' }, /^--max-time must be a number of seconds above 0/],
    [{ rate: 'fast' }, /^--rate must be a rate in bits per second such as 1G, 250M or 800k \(1K to 10T\), got "fast"$/],
    [{ rate: '10' }, /^--rate must be a rate in bits per second/],
    [{ seed: -1 }, /^seed must be a whole number of a 32-bit seed, 0 to 4294967295; got -1$/],
  ];
  for (const [options, message] of bad) {
    assert.throws(
      () => normalizeOptions(options),
      (error) => error.exitCode === 2 && message.test(error.message),
      JSON.stringify(options),
    );
  }
});

test('parsePorts keeps the CLIENT,SERVER,TARGET order', () => {
  assert.deepEqual(parsePorts(' 5, 6 ,7'), { client: 5, server: 6, target: 7 });
});

test('--full brings the stopping rule: 95 % within 5 %, at most 900 s; flags win', () => {
  const full = normalizeOptions({ mode: 'full' });
  assert.deepEqual([full.confidence, full.maxTime, full.maxRounds], [{ level: 0.95, width: 0.05 }, 900, 30]);
  const mine = normalizeOptions({ mode: 'full', confidence: '99,2', maxTime: '120', maxRounds: '10' });
  assert.deepEqual([mine.confidence, mine.maxTime, mine.maxRounds], [{ level: 0.99, width: 0.02 }, 120, 10]);
  assert.deepEqual(
    [
      normalizeOptions({ rate: '500M' }).rate,
      normalizeOptions({ rate: '1g' }).rate,
      normalizeOptions({ rate: '2500k' }).rate,
    ],
    [5e8, 1e9, 2.5e6],
  );
});

test('--noise-floor: 3 direct runs unless --smoke; --no-noise-floor and 0 turn it off', () => {
  assert.deepEqual(
    ['smoke', 'default', 'full'].map((mode) => normalizeOptions({ mode }).noiseFloor),
    [0, 3, 3],
  );
  assert.deepEqual(
    [
      normalizeOptions({ noiseFloor: false }).noiseFloor,
      normalizeOptions({ noiseFloor: '0' }).noiseFloor,
      normalizeOptions({ noiseFloor: '5' }).noiseFloor,
    ],
    [0, 0, 5],
  );
  assert.throws(
    () => normalizeOptions({ noiseFloor: '11' }),
    (error) =>
      error.exitCode === 2 && /^--noise-floor must be a whole number of runs, 0 to 10; got "11"$/.test(error.message),
  );
});
