import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { emptyFolder, runCli as runCliIn } from './support/cli.js';
import { freePortsFlag } from './support/ports.js';

// The rounds' flags as a person types them, with the built-in engine on
// loopback: bad values refused before anything starts, and a paced run
// that makes cost the figure.
const runCli = async (args, options) => runCliIn(['run', ...args, ...(await freePortsFlag())], options);

describe('cipherbench run: --seed, --confidence, --max-rounds, --max-time, --rate', { timeout: 120_000 }, () => {
  test('bad values: one line naming the option, exit 2, nothing started', async () => {
    const bad = [
      [
        ['--confidence', '101,5'],
        /^cipherbench: --confidence takes LEVEL,WIDTH in percent: a level from 50 to 99\.9 and a width above 0, e\.g\. 95,5; got "101,5"\n$/,
      ],
      [['--confidence', '95,0'], /^cipherbench: --confidence takes LEVEL,WIDTH/],
      [['--confidence', '49.9,5'], /^cipherbench: --confidence takes LEVEL,WIDTH/],
      [
        ['--rate', 'fast'],
        /^cipherbench: --rate must be a rate in bits per second such as 1G, 250M or 800k \(1K to 10T\), got "fast"\n$/,
      ],
      [['--max-rounds', '0'], /^cipherbench: --max-rounds must be a whole number of rounds, 1 to 100; got "0"\n$/],
      [['--max-time', '-3'], /^cipherbench: --max-time must be a number of seconds above 0/],
      [['--seed', 'abc'], /^cipherbench: seed must be a whole number/],
      [
        ['--engine', 'node', '--rate', '1G', '--both', '--parallel', '2'],
        /^cipherbench: --rate with --reverse or --both needs --engine iperf3: the built-in engine paces only what its sender sends\n$/,
      ],
    ];
    for (const [args, message] of bad) {
      const { code, stdout, stderr, descendants } = await runCli([...args, '--no-archive']);
      assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
      assert.match(stderr, message, args.join(' '));
      assert.equal(stdout, '');
      assert.deepEqual(descendants, [], `${args.join(' ')} started a process`);
    }
  });

  test('--rate paces the built-in engine: cost is the figure, ranked lowest first, with its interval; --seed recorded', async () => {
    const cwd = emptyFolder();
    const json = path.join(cwd, 'result.json');
    const { code, stdout, stderr } = await runCli(
      [
        '--engine',
        'node',
        '--filter',
        'plain',
        '--duration',
        '1',
        '--repeat',
        '3',
        '--rate',
        '50M',
        '--seed',
        '99',
        '--no-ceiling',
        '--no-archive',
        '--json',
        json,
      ],
      { cwd },
    );
    assert.equal(code, 0, stderr);
    const result = JSON.parse(readFileSync(json, 'utf8'));
    assert.deepEqual([result.options.rate, result.options.seed, result.rounds], [50e6, 99, 3]);
    const [plain] = result.cases;
    for (const run of plain.runs) {
      // Paced: near the offered rate, never far beyond it.
      assert.ok(run.sender.bits_per_second < 50e6 * 1.2, `sender ${run.sender.bits_per_second}`);
      assert.equal(typeof run.saturated, 'boolean');
    }
    const { pair } = plain.cost;
    assert.equal(plain.cost.saturatedRuns, plain.runs.filter((run) => run.saturated).length);
    if (plain.cost.saturatedRuns < 3) assert.ok(pair.cpuSecondsPerGB > 0 && pair.level === 0.95, JSON.stringify(pair));
    assert.match(stdout, /Ranked by the relay pair's CPU seconds per GB at 50\.0 Mbits\/sec offered, lowest first/);
    assert.match(
      stdout,
      /No warm-up: each cost includes what fresh relays on a JIT spend compiling .*--warmup 6 leaves it out/,
    );
    assert.match(stdout, /3 rounds in a random order, seed 99 \(--seed 99 replays it\)\./);
  });
});
