import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { test } from 'node:test';
import { AEAD_2022_METHODS } from '../lib/crypto/aead-2022-methods.js';
import { AEAD_METHODS } from '../lib/crypto/aead-methods.js';
import { STREAM_METHODS } from '../lib/crypto/stream-methods.js';
import { measureCipherCeiling, measurePipelineCeiling } from '../lib/ceiling/cipher-ceiling.js';
import { measureCeilingRounds } from '../lib/ceiling/cipher-rounds.js';
import { median } from '../lib/statistics/summaries.js';
import { cpuSeconds } from '../benchmark/programs/support/proc-stats.js';
import { CLI } from './support/processes.js';

// The bound is for a hang: every method warms up before its rounds, which
// took over a minute beside the whole suite on a loaded machine.
const ciphers = (...args) =>
  spawnSync(process.execPath, [CLI, 'ciphers', ...args], { encoding: 'utf8', timeout: 240_000 });

test('the ceiling counts the plaintext bytes that went through, per CPU second', () => {
  const [row] = measureCipherCeiling({
    presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }],
    sizes: [4096],
    minSeconds: 0.05,
  });
  assert.equal(row.size, 4096);
  for (const direction of [row.encrypt, row.decrypt]) {
    assert.ok(direction.bytes > 0 && direction.bytes % 4096 === 0, `whole reads only: ${direction.bytes}`);
    assert.ok(direction.cpuSeconds >= 0.05);
    assert.equal(direction.bits_per_second, (direction.bytes * 8) / direction.cpuSeconds);
  }
});

test('cipherbench ciphers --json measures every method, the legacy ones in a child of their own', () => {
  const result = ciphers('--json', '--size', '1k,16k', '--time', '0.02', '--rounds', '1');
  assert.equal(result.status, 0, result.stderr);
  const { ceilings } = JSON.parse(result.stdout);
  assert.deepEqual(
    ceilings.map((c) => c.method),
    [...Object.keys(STREAM_METHODS), ...Object.keys(AEAD_METHODS), ...Object.keys(AEAD_2022_METHODS)],
  );
  for (const { method, sizes } of ceilings) {
    assert.deepEqual(
      sizes.map((s) => s.size),
      [1024, 16384],
      method,
    );
    for (const { encrypt, decrypt } of sizes)
      assert.ok(encrypt.bits_per_second > 0 && decrypt.bits_per_second > 0, method);
  }
});

// A per-chunk cost dominates small reads: an AEAD method carries more per
// CPU second in 16 KB reads than in 1 KB ones, about 4 to 8 times here. One
// 20 ms window cannot show it: the process's CPU time counts V8's compiler
// and collector threads too, 0 to 39 ms of it in a window (read beside the
// main thread's own time), so beside the whole suite with two busy loops a
// single window once read 16 KB below 1 KB. The median of five 50 ms
// windows, as the command's rounds give it, can.
test('ciphers shows the per-chunk cost: aes-256-gcm carries more per CPU second in 16 KB reads than in 1 KB ones', () => {
  const result = ciphers('--json', '--methods', 'aes-256-gcm', '--size', '1k,16k', '--time', '0.25', '--rounds', '5');
  assert.equal(result.status, 0, result.stderr);
  const [
    {
      sizes: [small, large],
    },
  ] = JSON.parse(result.stdout).ceilings;
  for (const direction of ['encrypt', 'decrypt']) {
    assert.equal(large[direction].rounds.length, 5);
    assert.ok(
      large[direction].bits_per_second > small[direction].bits_per_second,
      `${direction}: 16 KB ${large[direction].bits_per_second}, 1 KB ${small[direction].bits_per_second} bit/s`,
    );
  }
});

test('the table names every method and size; bad input exits 2', () => {
  const table = ciphers('--size', '16k', '--time', '0.02', '--methods', 'aes-256-ctr,chacha20-ietf-poly1305');
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, /^method\s+size\s+encrypt\s+decrypt\n/);
  assert.match(table.stdout, /aes-256-ctr\s+16k\s+[\d.]+ [GM]bits\/sec \([\d.]+…[\d.]+\)\s+[\d.]+ [GM]bits\/sec/);
  for (const [args, message] of [
    [['--size', '0'], /--size: "0" is not a size/],
    [['--methods', 'aes-999'], /--methods: unknown aes-999; valid: aes-128-ctr/],
    [['--time', '-1'], /--time must be/],
  ]) {
    const bad = ciphers(...args);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, message);
  }
});

// A preset that answers (connection.reply) or holds data until answered only
// works when the client's and the server's pipelines talk to each other: a
// stand-in pipeline whose client says "hello" first and holds everything
// else until the server says "ok".
test('the ceiling joins client and server, so a handshake completes before anything is timed', () => {
  const createPipeline = (role) => {
    let answered = false;
    let wire = null;
    const held = [];
    return role === 'client'
      ? {
          encoder: (sink) => {
            wire = sink;
            let greeted = false;
            return (data) => {
              if (!greeted) {
                greeted = true;
                sink(Buffer.from('hello'));
              }
              if (answered) sink(data);
              else held.push(data);
            };
          },
          decoder: () => (data) => {
            if (String(data) === 'ok' && !answered) {
              answered = true;
              held.forEach((data) => wire(data));
            }
          },
        }
      : {
          encoder: (sink) => {
            wire = sink;
            return sink;
          },
          decoder: (sink) => (data) => {
            if (answered) return sink(data);
            answered = String(data) === 'hello';
            if (answered) wire(Buffer.from('ok'));
          },
        };
  };
  const [row] = measurePipelineCeiling(createPipeline, { sizes: [4096], minSeconds: 0.02 });
  assert.ok(row.encrypt.bytes > 0 && row.decrypt.bytes > 0);
  assert.equal(row.decrypt.bytes % 4096, 0, 'whole reads only: the handshake bytes are not counted');
});

test('--chain measures any chain, the legacy ones in a child; a bad chain exits 2', { timeout: 60_000 }, () => {
  const chains = [
    [{ name: 'base-auth' }, { name: 'aead-random-cipher', params: { method: 'aes-256-gcm' } }],
    [
      { name: 'base-auth', params: { method: 'md5' } },
      { name: 'ss-stream-cipher', params: { method: 'rc4-md5-6' } },
    ],
  ];
  const result = ciphers(
    '--json',
    '--size',
    '16k',
    '--time',
    '0.02',
    ...chains.flatMap((c) => ['--chain', JSON.stringify(c)]),
  );
  assert.equal(result.status, 0, result.stderr);
  const rows = JSON.parse(result.stdout).ceilings;
  assert.deepEqual(
    rows.map((r) => r.label),
    ['base-auth + aead-random-cipher(aes-256-gcm)', 'base-auth(md5) + ss-stream-cipher(rc4-md5-6)'],
  );
  assert.deepEqual(
    rows.map((r) => r.presets),
    chains,
  );
  for (const {
    sizes: [{ encrypt, decrypt }],
  } of rows)
    assert.ok(encrypt.bits_per_second > 0 && decrypt.bits_per_second > 0);
  const table = ciphers('--size', '16k', '--time', '0.02', '--chain', JSON.stringify(chains[0]));
  assert.match(
    table.stdout,
    /^chain\s+size\s+encrypt\s+decrypt\nbase-auth \+ aead-random-cipher\(aes-256-gcm\)\s+16k\s+[\d.]+ [GM]bits\/sec/,
  );
  for (const [args, message] of [
    [['--chain', '[{"name":"ss-stream-cipher","params":{"method":"none"}}]'], /--chain .*: presets: no address preset/],
    [['--chain', '[{'], /--chain: not JSON/],
    [['--chain', JSON.stringify(chains[0]), '--methods', 'none'], /--chain and --methods: give one or the other/],
  ]) {
    const bad = ciphers(...args);
    assert.equal(bad.status, 2, bad.stderr);
    assert.match(bad.stderr, message);
  }
});

const AES = (method) => [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method } }];

test('rounds: every chain once a round, in an order drawn from the seed, the figure the median of the rounds', async () => {
  const chains = ['aes-128-gcm', 'aes-192-gcm', 'aes-256-gcm', 'chacha20-ietf-poly1305'].map(AES);
  const orders = async (seed) => {
    const steps = [];
    const rows = await measureCeilingRounds(chains, {
      sizes: [1024],
      seconds: 0.02,
      rounds: 6,
      seed,
      onStep: (round, position, at) => steps.push([round, position, at]),
    });
    const byRound = Array.from({ length: 6 }, (_, round) => steps.filter(([r]) => r === round).map(([, , at]) => at));
    return { byRound, rows };
  };
  const { byRound, rows } = await orders(42);
  for (const order of byRound) assert.deepEqual([...order].sort(), [0, 1, 2, 3], 'each chain once a round');
  assert.ok(new Set(byRound.map(String)).size > 1, `the order changes between rounds: ${byRound.join(' | ')}`);
  assert.ok(
    byRound.some((order) => order[0] !== 0),
    'the first listed is not always measured first',
  );
  assert.deepEqual((await orders(42)).byRound, byRound, 'the same seed, the same order');
  for (const {
    sizes: [{ encrypt, decrypt }],
  } of rows) {
    for (const direction of [encrypt, decrypt]) {
      assert.equal(direction.rounds.length, 6);
      assert.equal(direction.bits_per_second, median(direction.rounds));
      assert.ok(direction.min <= direction.bits_per_second && direction.bits_per_second <= direction.max);
    }
  }
});

test('the table shows each median with the spread of its rounds and the seed that repeats the order', () => {
  const table = ciphers(
    '--size',
    '1k',
    '--time',
    '0.03',
    '--rounds',
    '3',
    '--seed',
    '9',
    '--methods',
    'aes-128-gcm,rc4-md5',
  );
  assert.equal(table.status, 0, table.stderr);
  assert.match(
    table.stdout,
    /^aes-128-gcm +1k +[\d.]+ [GM]bits\/sec \([\d.]+…[\d.]+\) +[\d.]+ [GM]bits\/sec \([\d.]+…[\d.]+\)$/m,
  );
  assert.match(table.stdout, /^rc4-md5 +1k +[\d.]+ [GM]bits\/sec \(/m);
  assert.match(table.stdout, /\n\nMedian of 3 rounds after a warm-up, .*\(--seed 9 repeats it\)/);
  const json = JSON.parse(
    ciphers('--size', '1k', '--time', '0.03', '--rounds', '2', '--seed', '9', '--methods', 'rc4-md5', '--json').stdout,
  );
  assert.deepEqual(
    [json.rounds, json.seed, json.ceilings[0].sizes[0].encrypt.rounds.length],
    [2, 9, 2],
    'the legacy child measures in rounds too',
  );
  for (const [args, message] of [
    [['--rounds', '0'], /^cipherbench: --rounds takes a whole number from 1 to 100, got "0"\n$/],
    [['--seed', 'x'], /^cipherbench: --seed takes a whole number/],
  ]) {
    const bad = ciphers(...args);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, message);
  }
});

// Minutes of measurement stopped by Ctrl-C, kill or a closing terminal:
// what was measured by then is printed, marked incomplete, and the exit
// code is the signal's (128 + its number).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  test(
    `ciphers stopped by ${signal}: prints the rounds measured so far, exit ${128 + os.constants.signals[signal]}`,
    { timeout: 60_000 },
    async () => {
      const json = signal !== 'SIGHUP';
      // 100 rounds of 20 ms a method: far longer than the wait below.
      const child = spawn(
        process.execPath,
        [
          CLI,
          'ciphers',
          '--size',
          '1k',
          '--time',
          '2',
          '--rounds',
          '100',
          '--seed',
          '1',
          '--methods',
          'aes-128-gcm,chacha20-ietf-poly1305',
          ...(json ? ['--json'] : []),
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (data) => {
        stdout += data;
      });
      child.stderr.setEncoding('utf8').on('data', (data) => {
        stderr += data;
      });
      // Signalled once it has had 3 s of CPU, what 4 s of a quiet machine
      // give it (start-up, the warm-up and a few rounds), however busy this
      // machine is: a fixed 4 s of wall time under .ci/run beside a looping
      // benchmark reached no round at all.
      while (child.exitCode === null && cpuSeconds(child.pid) < 3) await delay(50);
      child.kill(signal);
      const [code] = await once(child, 'close');
      assert.equal(code, 128 + os.constants.signals[signal], stderr);
      if (json) {
        const result = JSON.parse(stdout);
        assert.equal(result.complete, false);
        assert.equal(result.interrupted, signal);
        assert.ok(result.ceilings.length >= 1, `a method measured by then: ${stdout}`);
        for (const {
          method,
          sizes: [{ encrypt, decrypt }],
        } of result.ceilings) {
          assert.ok(
            encrypt.rounds.length >= 1 && encrypt.rounds.length < 100,
            `${method}: ${encrypt.rounds.length} rounds`,
          );
          assert.equal(encrypt.bits_per_second, median(encrypt.rounds));
          assert.equal(decrypt.rounds.length, encrypt.rounds.length);
        }
        assert.deepEqual([...result.ceilings.map((row) => row.method), ...result.notMeasured].sort(), [
          'aes-128-gcm',
          'chacha20-ietf-poly1305',
        ]);
      } else {
        assert.match(stdout, /^(aes-128-gcm|chacha20-ietf-poly1305) +1k +[\d.]+ [GMk]bits\/sec/m);
        assert.match(
          stdout,
          new RegExp(
            `\\nINCOMPLETE: interrupted by ${signal}; each figure is the median of the rounds its method had by then`,
          ),
        );
      }
    },
  );
}
