import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeOptions, parsePorts } from '../lib/runner/options.js';

test('defaults', () => {
  assert.deepEqual(normalizeOptions({}), {
    mode: 'default',
    duration: 3,
    parallel: 1,
    repeat: 1,
    filter: null,
    relativeTo: null,
    engine: 'auto',
    ports: { client: 1081, server: 1082, target: 1083 },
    readyTimeout: 10,
    latency: false,
    reverse: false,
    both: false,
    ceiling: true,
    udp: false,
    rate: null,
    length: null,
    maxLoss: null,
    link: null,
    remote: null,
    caseLimit: null,
  });
});

test('--udp: the offered rate and datagram length, with defaults, and refused without --udp or out of range', () => {
  const pick = ({ udp, rate, length }) => ({ udp, rate, length });
  assert.deepEqual(pick(normalizeOptions({ udp: true })), { udp: true, rate: 1e9, length: 1200 });
  assert.deepEqual(pick(normalizeOptions({ udp: true, rate: '250M', length: '1400' })), { udp: true, rate: 250e6, length: 1400 });
  assert.deepEqual(pick(normalizeOptions({ udp: true, rate: '1.5g' })), { udp: true, rate: 1.5e9, length: 1200 });
  assert.equal(normalizeOptions({ udp: true, maxLoss: '0.5' }).maxLoss, 0.5);
  for (const [options, message] of [
    [{ udp: true, rate: 'fast' }, /^--rate must be a rate in bits per second such as 1G/],
    [{ udp: true, rate: '0' }, /^--rate must be a rate/],
    [{ udp: true, rate: '1X' }, /^--rate must be a rate/],
    [{ udp: true, length: 65_508 }, /^length must be a whole number of bytes, 16 to 65507/],
    [{ udp: true, length: 15 }, /^length must be a whole number of bytes, 16 to 65507/],
    [{ rate: '1G' }, /^--rate goes with --udp/],
    [{ length: 1200 }, /^--length goes with --udp/],
    [{ maxLoss: 1 }, /^--max-loss goes with --udp/],
    [{ udp: true, maxLoss: '101' }, /^--max-loss must be a percentage from 0 to 100, got "101"/],
    [{ udp: true, maxLoss: '-1' }, /^--max-loss must be a percentage/],
    [{ udp: true, maxLoss: 'some' }, /^--max-loss must be a percentage/],
  ]) {
    assert.throws(() => normalizeOptions(options), (error) => error.exitCode === 2 && message.test(error.message), JSON.stringify(options));
  }
});

test('a mode sets duration, repeat, latency and how many cases; explicit options win', () => {
  const pick = ({ mode, duration, repeat, latency, caseLimit }) => ({ mode, duration, repeat, latency, caseLimit });
  assert.deepEqual(pick(normalizeOptions({ mode: 'smoke' })), { mode: 'smoke', duration: 1, repeat: 1, latency: false, caseLimit: 3 });
  assert.deepEqual(pick(normalizeOptions({ mode: 'default' })), { mode: 'default', duration: 3, repeat: 1, latency: false, caseLimit: null });
  assert.deepEqual(pick(normalizeOptions({ mode: 'full' })), { mode: 'full', duration: 5, repeat: 3, latency: true, caseLimit: null });
  assert.deepEqual(
    pick(normalizeOptions({ mode: 'full', duration: '2', repeat: '5', latency: false })),
    { mode: 'full', duration: 2, repeat: 5, latency: false, caseLimit: null },
  );
  assert.deepEqual(pick(normalizeOptions({ mode: 'smoke', repeat: 2, latency: true })), { mode: 'smoke', duration: 1, repeat: 2, latency: true, caseLimit: 3 });
});

test('the CLI gives text, the API numbers: both read the same', () => {
  const fromCli = normalizeOptions({ duration: '2', parallel: '4', ports: '2001,2002,2003' });
  const fromApi = normalizeOptions({ duration: 2, parallel: 4, ports: { client: 2001, server: 2002, target: 2003 } });
  assert.deepEqual(fromCli, fromApi);
});

test('bad values say what is wanted and what was given', () => {
  const bad = [
    [{ duration: 0.5 }, /^duration must be a whole number of seconds, 1 or more; got 0\.5$/],
    [{ duration: 'x' }, /duration must be a whole number/],
    [{ parallel: 129 }, /parallel must be a whole number of streams, 1 to 128; got 129/],
    [{ filter: '' }, /filter must be/],
    [{ relativeTo: '' }, /^relativeTo must be a case index or some text from one case, got ""$/],
    [{ engine: 'netperf' }, /^engine must be one of auto, iperf3, node, got "netperf"$/],
    [{ readyTimeout: 0 }, /readyTimeout must be a positive number/],
    [{ repeat: 0 }, /^repeat must be a whole number of runs, 1 to 100; got 0$/],
    [{ mode: 'quick' }, /^mode must be one of smoke, default, full, got "quick"$/],
    [{ reverse: true, both: true }, /not the two together/],
    [{ latency: 'yes' }, /^latency must be true or false/],
    [{ ports: '1,2' }, /--ports must be three port numbers/],
    [{ ports: '1081,1081,1083' }, /must differ/],
    [{ ports: { client: 70000, server: 1, target: 2 } }, /the client port must be a whole number from 1 to 65535/],
  ];
  for (const [options, message] of bad) {
    assert.throws(() => normalizeOptions(options), (error) => error.exitCode === 2 && message.test(error.message), JSON.stringify(options));
  }
});

test('parsePorts keeps the CLIENT,SERVER,TARGET order', () => {
  assert.deepEqual(parsePorts(' 5, 6 ,7'), { client: 5, server: 6, target: 7 });
});
