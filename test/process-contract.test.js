import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const LIB = fileURLToPath(new URL('../lib', import.meta.url));
const CONTRACT = path.join(LIB, 'process');

// Every source file below lib/, with its path from lib/.
const sources = () =>
  readdirSync(LIB, { recursive: true })
    .filter((name) => /\.(c|m)?js$/.test(name))
    .map((name) => ({ name, file: path.join(LIB, name), text: readFileSync(path.join(LIB, name), 'utf8') }));

// An import of a module that starts processes: static, dynamic or require().
const SPAWNS =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)['"](?:node:)?child_process['"]|(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)['"]execa['"]/;

test('only lib/process starts processes: no other file in lib/ imports node:child_process or execa', () => {
  const outside = sources().filter(({ file }) => !file.startsWith(`${CONTRACT}${path.sep}`));
  assert.ok(outside.length > 50, `lib/ read (${outside.length} files)`);
  const spawning = outside.filter(({ text }) => SPAWNS.test(text)).map(({ name }) => name);
  assert.deepEqual(spawning, [], `these start processes outside lib/process: ${spawning.join(', ')}`);
  // The pattern finds what it is meant to find, in every form.
  for (const line of [
    "import { execa } from 'execa';",
    "import { spawn } from 'node:child_process';",
    "const { execFile } = require('child_process');",
    "await import('execa')",
  ]) {
    assert.match(line, SPAWNS);
  }
  assert.ok(
    sources().some(({ file, text }) => file.startsWith(CONTRACT) && SPAWNS.test(text)),
    'lib/process itself starts them',
  );
});

test('the ready line our relays print is written once, in lib/process/ready-line.js', () => {
  const writing = sources()
    .filter(({ text }) => /\/\^?listening on \//.test(text) || /`listening on \$\{/.test(text))
    .map(({ name }) => name);
  assert.deepEqual(writing, [path.join('process', 'ready-line.js')]);
});

// A child waited on through the socket table that dies at once takes its
// /proc/PID/net with it; that must read as its exit, not as a machine
// without /proc. It lost that race about once in a few hundred.
test(
  'a child that dies before it listens is said to have exited, however fast it dies',
  { timeout: 60_000 },
  async () => {
    const { startProcess } = await import('../lib/process/processes.js');
    for (let attempt = 0; attempt < 100; attempt++) {
      const child = startProcess('false', 'false', []);
      assert.equal(
        await child.ready({ listening: 1 }, { timeoutMs: 10_000 }),
        'false exited with code 1 before it was ready',
      );
    }
  },
);

// ss-tunnel and ss-server print their 'listening at' line just before they
// bind; a plugin's line comes before its parent listens. A readiness with a
// line and a port waits for both, in that order.
test(
  'a readiness of a line and a port waits for the line, then for the port to listen',
  { timeout: 60_000 },
  async () => {
    const { startProcess } = await import('../lib/process/processes.js');
    const { freePort } = await import('./support/ports.js');
    const port = await freePort();
    const script = `console.log('listening at ${port}'); setTimeout(() => require('net').createServer().listen(${port}, '127.0.0.1'), 700); setTimeout(() => {}, 30000);`;
    const child = startProcess('late listener', process.execPath, ['-e', script]);
    try {
      const started = performance.now();
      // A loaded machine may take seconds to start the child: the bound is
      // for a listener that never comes, not for speed.
      assert.equal(await child.ready({ stdout: /^listening at /, listening: port }, { timeoutMs: 40_000 }), null);
      const waited = performance.now() - started;
      assert.ok(waited >= 600, `ready after ${Math.round(waited)} ms, before the port listened`);
      // The line alone is taken at once: it is the port that was waited for.
      const again = performance.now();
      assert.equal(await child.ready({ stdout: /^listening at / }, { timeoutMs: 10_000 }), null);
      assert.ok(performance.now() - again < 500, 'the line alone is taken without waiting');
    } finally {
      await child.stop();
    }
  },
);
