import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { tellingLines } from '../lib/process/processes.js';
import { locatePeer } from '../lib/peers/index.js';
import { run } from '../lib/runner/run.js';
import { freeRunPorts } from './support/ports.js';
import { CLI } from './support/processes.js';
import { requirePrograms } from './support/programs.js';

// A failed row must say why in the report: the failing process's own last
// stderr lines under the one-line reason, whichever process it was.
const GCM = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
const CHACHA = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'chacha20-ietf-poly1305' } }];
process.env.CIPHERBENCH_BLINKSOCKS ??= fileURLToPath(new URL('../.ci/peers', import.meta.url));

const relay = (side, chain, extra = '') =>
  `${process.execPath} ${CLI} relay ${side} --listen {listen} ${side === 'client' ? '--server {server} --forward {forward} ' : ''}--key {key} ${extra}--presets '${JSON.stringify(chain)}'`;

test('the telling lines of a stderr: the error above a Node.js stack, not its frames', () => {
  const stderr = [
    '/usr/lib/node_modules/x/lib/config.js:61',
    "      throw Error('file must be a non-empty string');",
    '      ^',
    '',
    "Error: 'file' must be a non-empty string",
    '    at ObfsHttpPreset.onCheckParams (/x/lib/presets/obfs-http.js:61:13)',
    '    at Config._testServer (/x/lib/core/config.js:409:15)',
    '    at Module.load (node:internal/modules/cjs/loader:1266:32)',
    '',
    'Node.js v20.20.2',
  ];
  assert.deepEqual(tellingLines(stderr, 2), [
    "      throw Error('file must be a non-empty string');",
    "Error: 'file' must be a non-empty string",
  ]);
  assert.deepEqual(tellingLines(['a', 'b', 'c', 'd', 'e', 'f', 'g']), ['c', 'd', 'e', 'f', 'g']);
});

test(
  "a peer that dies before it is ready, and a relay that refuses the other side's chain, say why",
  { timeout: 60_000 },
  async (t) => {
    const ports = await freeRunPorts();
    if (!requirePrograms(t, 'iperf3')) return;
    const result = await run({
      cases: [
        // A relay that dies at start-up as a Node.js program does: an error and a stack.
        {
          impl: 'command',
          label: 'dies',
          server: `${process.execPath} -e "throw new Error('bad listen address ' + process.argv[1])" {listen}`,
          client: relay('client', GCM),
        },
        // Client and server disagree on the cipher: the server drops the
        // connection, and says why at the log level the runner gives ours.
        {
          impl: 'command',
          label: 'wrong chain',
          server: relay('server', GCM, '--log-level debug '),
          client: relay('client', CHACHA),
        },
      ],
      duration: 1,
      repeat: 1,
      remeasure: 0,
      ceiling: false,
      engine: 'iperf3',
      ports,
    });
    const [dies, wrong] = result.cases;
    assert.equal(dies.status, 'failed');
    const diesLines = dies.reason.split('\n');
    assert.match(diesLines[0], /^server node exited with code 1 before it was ready$/);
    assert.ok(diesLines.includes(`server node: Error: bad listen address 127.0.0.1:${ports.server}`), dies.reason);
    assert.ok(!diesLines.some((line) => /^server node:\s+at /.test(line)), 'no stack frames');

    assert.equal(wrong.status, 'failed');
    const wrongLines = wrong.reason.split('\n');
    assert.match(wrongLines[0], /^iperf3: /);
    assert.ok(
      wrongLines.some((line) => /^server node: debug: 127\.0\.0\.1:\d+: .*(tag|authentic)/i.test(line)),
      wrong.reason,
    );
  },
);

test("a blinksocks row that fails carries blinksocks' own error", { timeout: 60_000 }, async (t) => {
  const ports = await freeRunPorts();
  if (!requirePrograms(t, 'iperf3')) return;
  // An empty file name passes the row's own check and is refused by
  // blinksocks at start, in its own words.
  const presets = [
    { name: 'ss-base' },
    { name: 'obfs-http', params: { file: '' } },
    { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } },
  ];
  const { reason } = await locatePeer({ impl: 'blinksocks', presets });
  if (reason) {
    const message = `needs blinksocks 3 (npm install --prefix .ci/peers --no-save blinksocks@3.3.0): ${reason}`;
    if (process.env.CI === 'true') throw new Error(message);
    t.skip(message);
    return;
  }
  const result = await run({
    cases: [{ impl: 'blinksocks', presets }],
    duration: 1,
    repeat: 1,
    remeasure: 0,
    ceiling: false,
    engine: 'iperf3',
    ports,
  });
  const [row] = result.cases;
  assert.equal(row.status, 'failed');
  const lines = row.reason.split('\n');
  // Both halves refuse the chain; whichever exits first is the one line.
  assert.match(lines[0], /^blinksocks (server|client) exited with code 255 before it was ready$/);
  assert.ok(
    lines.some((line) => /^blinksocks (server|client): Error: 'file' must be a non-empty string$/.test(line)),
    row.reason,
  );
  assert.ok(!lines.some((line) => /^blinksocks \w+:\s+at /.test(line)), 'no stack frames');
});
