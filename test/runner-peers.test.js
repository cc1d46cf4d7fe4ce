import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { CLI } from './support/processes.js';
import { caseDefinition } from '../lib/report/case-label.js';
import { locatePeer } from '../lib/peers/index.js';
import { RELAY_NODE_FLAGS } from '../lib/relay/node-flags.js';
import { freeRunPorts } from './support/ports.js';
import { assertAllGone } from './support/process-tree.js';
import { requirePrograms, which } from './support/programs.js';
import { runRecording } from './support/run-recording.js';

// Reference rows through real implementations on loopback: every peer type
// CI installs (shadowsocks-libev from Debian, blinksocks 3.3.0 from npm into
// .ci/peers for the test run only), and peers that are absent. Free ports
// for each run (test/support/ports.js); one second a run.
const GCM = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
// Where .ci/run installs blinksocks; a person may point elsewhere.
process.env.CIPHERBENCH_BLINKSOCKS ??= fileURLToPath(new URL('../.ci/peers', import.meta.url));

// blinksocks is an npm package, not a program on PATH: found as the runner
// finds it, and like a missing program, required in CI and skipped outside.
async function requireBlinksocks(t) {
  const { reason } = await locatePeer({ impl: 'blinksocks', presets: GCM });
  if (!reason) return true;
  const message = `needs blinksocks 3 (npm install --prefix .ci/peers --no-save blinksocks@3.3.0): ${reason}`;
  if (process.env.CI === 'true') throw new Error(message);
  t.skip(message);
  return false;
}

// The command line of every child the run started, by "index role".
async function runWithCommands(options) {
  const commands = new Map();
  const { result, pids } = await runRecording(options, (event) => {
    if (event.type !== 'process-started') return;
    commands.set(`${event.index} ${event.role}`, event.command);
  });
  return { result, commands, pids };
}

const measured = (side) => side.bytes > 0 && side.seconds > 0 && side.bits_per_second > 0;

test(
  'direct, plain, shadowsocks-libev and blinksocks rows run like our own relays; absent peers are skipped',
  { timeout: 60_000 },
  async (t) => {
    const ports = await freeRunPorts();
    if (!requirePrograms(t, 'iperf3', 'ss-server', 'ss-tunnel') || !(await requireBlinksocks(t))) return;
    const cases = [
      GCM,
      { impl: 'direct' },
      { impl: 'plain' },
      { impl: 'shadowsocks-libev', method: 'aes-256-gcm' },
      { impl: 'blinksocks', presets: GCM },
      { impl: 'shadowsocks-rust', method: 'aes-256-gcm' },
      {
        impl: 'command',
        server: 'no-such-relay --listen {listen}',
        client: 'no-such-relay --listen {listen} --server {server} --forward {forward}',
      },
      // Any relay pair from two command lines: here our own, as docs/cases.md shows.
      {
        impl: 'command',
        label: 'our relays by command',
        server: `'${process.execPath}' ${CLI} relay server --listen {listen} --key {key} --presets '${JSON.stringify(GCM)}'`,
        client: `'${process.execPath}' ${CLI} relay client --listen {listen} --server {server} --forward {forward} --key {key} --presets '${JSON.stringify(GCM)}'`,
      },
    ];
    const { result, commands, pids } = await runWithCommands({ cases, ports, relativeTo: 'shadowsocks-libev' });
    const byIndex = (index) => result.cases.find((caseResult) => caseResult.index === index);

    assert.deepEqual(
      result.cases.map((c) => [c.index, c.impl ?? 'chain', c.label]),
      [
        [0, 'chain', undefined],
        [1, 'direct', 'direct (no relay)'],
        [2, 'plain', 'plain (our relays, no cipher)'],
        [3, 'shadowsocks-libev', 'shadowsocks-libev aes-256-gcm'],
        [4, 'blinksocks', 'blinksocks aes-256-gcm'],
        [5, 'shadowsocks-rust', 'shadowsocks-rust aes-256-gcm'],
        [6, 'command', 'command no-such-relay'],
        [7, 'command', 'our relays by command'],
      ],
    );
    assert.deepEqual(byIndex(3).method, 'aes-256-gcm');
    assert.deepEqual(byIndex(4).presets, GCM);
    for (const index of [0, 1, 2, 3, 4, 7]) {
      const caseResult = byIndex(index);
      assert.equal(caseResult.status, 'ok', `case ${index}: ${caseResult.reason}`);
      assert.ok(measured(caseResult.sender) && measured(caseResult.receiver), `case ${index} measured`);
      // Every relay's CPU and memory, read from the OS for its own pid.
      if (index === 1) {
        assert.equal(caseResult.cost, null, 'direct has no relay to cost');
      } else {
        for (const relay of ['client', 'server']) {
          const { cpuSeconds, peakRssBytes, cpuSecondsPerGB } = caseResult.cost[relay];
          assert.ok(
            cpuSeconds > 0 && peakRssBytes > 0 && cpuSecondsPerGB > 0,
            `case ${index} ${relay}: ${JSON.stringify(caseResult.cost[relay])}`,
          );
        }
      }
    }
    // The processes each row started: the same roles, other programs.
    const program = (key) => commands.get(key)?.map((word) => word.split('/').at(-1));
    assert.deepEqual(
      program('1 iperf3-client').slice(0, 5),
      ['iperf3', '-c', '127.0.0.1', '-p', String(ports.target)],
      'direct: straight to iperf3 -s',
    );
    assert.equal(commands.has('1 relay-server'), false);
    assert.deepEqual(
      program('2 relay-server').slice(1, RELAY_NODE_FLAGS.length + 4),
      [...RELAY_NODE_FLAGS, 'cipherbench.js', 'relay', 'server'],
      "started with the relay's node flags",
    );
    assert.ok(commands.get('2 relay-server').includes('[{"name":"ss-base"}]'));
    assert.deepEqual([program('3 relay-server')[0], program('3 relay-client')[0]], ['ss-server', 'ss-tunnel']);
    assert.deepEqual(program('4 relay-client').slice(1, 3), ['start.js', '-c'], 'blinksocks from its own bin');
    // The placeholders filled in, each word as it was, no shell between.
    assert.deepEqual(commands.get('7 relay-client').slice(1), [
      CLI,
      'relay',
      'client',
      '--listen',
      `127.0.0.1:${ports.client}`,
      '--server',
      `127.0.0.1:${ports.server}`,
      '--forward',
      `127.0.0.1:${ports.target}`,
      '--key',
      commands.get('7 relay-server')[7],
      '--presets',
      JSON.stringify(GCM),
    ]);
    assert.match(commands.get('7 relay-server')[7], /^[0-9a-f]{32}$/, "the run's key");

    // A peer that is not installed is skipped with why and how to install it.
    const rust = byIndex(5);
    if (which('ssserver') && which('sslocal')) {
      assert.equal(rust.status, 'ok', rust.reason);
    } else {
      assert.equal(rust.status, 'skipped');
      assert.equal(
        rust.reason,
        'not installed: ssserver, sslocal not found on PATH; install it with `cargo install shadowsocks-rust`, ' +
          'or put ssserver and sslocal from a release (github.com/shadowsocks/shadowsocks-rust/releases) on PATH',
      );
      assert.deepEqual(rust.runs, []);
    }
    const command = byIndex(6);
    assert.equal(command.status, 'skipped');
    assert.equal(
      command.reason,
      "not installed: no-such-relay not found on PATH; install it, or give its full path in the case's command",
    );
    assert.equal(commands.has('6 relay-server'), false, 'nothing started for it');

    // --relative-to: each run over the named row's in the same round; one
    // round is one ratio, with no interval.
    assert.equal(result.options.relativeTo, 'shadowsocks-libev');
    const reference = byIndex(3).receiver.bits_per_second;
    for (const caseResult of result.cases) {
      const measured = caseResult.index !== 3 && caseResult.receiver;
      const expected = measured ? caseResult.receiver.bits_per_second / reference : null;
      assert.deepEqual(
        caseResult.relative,
        { to: 3, ratio: expected, low: null, high: null, level: 0.95, rounds: measured ? 1 : 0 },
        `case ${caseResult.index}`,
      );
    }
    assertAllGone(pids);
  },
);

test(
  'shadowsocks-rust: ssserver and sslocal in tunnel mode, a 2022 row and our 2022 chain each with a fresh PSK',
  { timeout: 60_000 },
  async (t) => {
    // .ci/run builds shadowsocks-rust (cargo install, cached): required in CI.
    if (!requirePrograms(t, 'iperf3', 'ssserver', 'sslocal')) return;
    const cases = [
      { impl: 'shadowsocks-rust', method: 'aes-256-gcm' },
      { impl: 'shadowsocks-rust', method: '2022-blake3-aes-256-gcm' },
      [{ name: 'ss-2022', params: { method: '2022-blake3-aes-128-gcm' } }],
    ];
    const { result, commands, pids } = await runWithCommands({ cases, ports: await freeRunPorts() });
    for (const caseResult of result.cases) {
      assert.equal(caseResult.status, 'ok', `case ${caseResult.index}: ${caseResult.reason}`);
      assert.ok(measured(caseResult.receiver) && caseResult.cost.client.cpuSeconds > 0);
    }
    assert.ok(commands.get('0 relay-client').includes('tunnel'));
    const keyOf = (command, flag) => command[command.indexOf(flag) + 1];
    assert.match(keyOf(commands.get('0 relay-server'), '-k'), /^[0-9a-f]{32}$/, "the run's password");
    const rustKey = keyOf(commands.get('1 relay-server'), '-k');
    assert.equal(Buffer.from(rustKey, 'base64').length, 32, 'a 32-byte PSK for 2022-blake3-aes-256-gcm');
    assert.equal(keyOf(commands.get('1 relay-client'), '-k'), rustKey);
    const ourKey = keyOf(commands.get('2 relay-server'), '--key');
    assert.equal(Buffer.from(ourKey, 'base64').length, 16, 'a 16-byte PSK for 2022-blake3-aes-128-gcm');
    assert.equal(keyOf(commands.get('2 relay-client'), '--key'), ourKey);
    assertAllGone(pids);
  },
);

test(
  'shadowsocks-libev with simple-obfs on both ends, http and tls; skipped with how to install it when the plugin is missing',
  { timeout: 60_000 },
  async (t) => {
    if (!requirePrograms(t, 'iperf3', 'ss-server', 'ss-tunnel', 'obfs-server', 'obfs-local')) return;
    const cases = [
      { impl: 'shadowsocks-libev', method: 'aes-256-gcm', obfs: 'http' },
      { impl: 'shadowsocks-libev', method: 'aes-256-gcm', obfs: 'tls' },
      // Our relays with the same wire, beside them.
      [...GCM, { name: 'simple-obfs', params: { mode: 'tls' } }],
    ];
    const { result, commands, pids } = await runWithCommands({ cases, ports: await freeRunPorts() });
    assert.deepEqual(
      result.cases.map((c) => [c.impl ?? 'chain', c.label, c.obfs]),
      [
        ['shadowsocks-libev', 'shadowsocks-libev aes-256-gcm + simple-obfs http', 'http'],
        ['shadowsocks-libev', 'shadowsocks-libev aes-256-gcm + simple-obfs tls', 'tls'],
        ['chain', undefined, undefined],
      ],
    );
    // Reports and compare know the row by its definition, obfs included.
    assert.deepEqual(caseDefinition(result.cases[0]), {
      impl: 'shadowsocks-libev',
      method: 'aes-256-gcm',
      obfs: 'http',
    });
    for (const caseResult of result.cases) {
      assert.equal(caseResult.status, 'ok', `case ${caseResult.index}: ${caseResult.reason}`);
      assert.ok(measured(caseResult.sender) && measured(caseResult.receiver), `case ${caseResult.index} measured`);
    }
    for (const [index, obfs] of [
      [0, 'http'],
      [1, 'tls'],
    ]) {
      const server = commands.get(`${index} relay-server`);
      const client = commands.get(`${index} relay-client`);
      assert.deepEqual(
        server.slice(-4).map((word) => word.split('/').at(-1)),
        ['--plugin', 'obfs-server', '--plugin-opts', `obfs=${obfs}`],
      );
      assert.deepEqual(
        client.slice(-4).map((word) => word.split('/').at(-1)),
        ['--plugin', 'obfs-local', '--plugin-opts', `obfs=${obfs}`],
      );
    }
    assertAllGone(pids);

    // Without the plugin on PATH the row is skipped, saying what to install.
    const onlyLibev = mkdtempSync(path.join(tmpdir(), 'cipherbench-no-obfs-'));
    t.after(() => rmSync(onlyLibev, { recursive: true, force: true }));
    for (const program of ['ss-server', 'ss-tunnel']) symlinkSync(which(program), path.join(onlyLibev, program));
    const env = { PATH: onlyLibev };
    assert.deepEqual(await locatePeer({ impl: 'shadowsocks-libev', method: 'aes-256-gcm', obfs: 'http' }, { env }), {
      reason:
        'not installed: obfs-server, obfs-local not found on PATH; install them with `apt-get install shadowsocks-libev simple-obfs` (Debian/Ubuntu)',
    });
    assert.ok(
      (await locatePeer({ impl: 'shadowsocks-libev', method: 'aes-256-gcm' }, { env })).found,
      'the row without obfs needs no plugin',
    );
  },
);
