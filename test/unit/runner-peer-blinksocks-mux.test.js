import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import blinksocks from '../../lib/peers/blinksocks.js';

// blinksocks rows with `mux: true`: both configs say mux, its client's
// says mux_concurrency when the row gives concurrency (its tunnels, default
// 10), and a row its client cannot run (mux over wss) is refused.
const GCM = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
const ports = { client: 1081, server: 1082, target: 1083 };

async function configs(row) {
  const { relays, cleanup } = await blinksocks.plan(row, { ports, key: 'k', found: { blinksocks: 'start.js' } });
  try {
    return relays.map((relay) => JSON.parse(readFileSync(relay.args.at(-1), 'utf8')));
  } finally {
    await cleanup();
  }
}

test('a mux row turns on mux at both ends, and concurrency is its mux_concurrency', async () => {
  for (const transport of ['tcp', 'ws', 'tls']) {
    const row = { impl: 'blinksocks', presets: GCM, transport, mux: true, concurrency: 3 };
    assert.deepEqual(blinksocks.validate(row), []);
    const [server, client] = await configs(row);
    assert.equal(server.mux, true);
    assert.equal(server.mux_concurrency, undefined);
    assert.equal(client.server.mux, true);
    assert.equal(client.server.mux_concurrency, 3);
    assert.deepEqual(server.presets, GCM, 'blinksocks drops the address preset itself');
    assert.equal(blinksocks.label(row), `blinksocks aes-256-gcm${transport === 'tcp' ? '' : ` + ${transport}`} + mux`);
  }
  const [server, client] = await configs({ impl: 'blinksocks', presets: GCM, mux: true });
  assert.equal(client.server.mux_concurrency, undefined, "blinksocks' own default");
  assert.equal(server.mux, true);
  const [plainServer, plainClient] = await configs({ impl: 'blinksocks', presets: GCM });
  assert.equal(plainServer.mux, undefined);
  assert.equal(plainClient.server.mux, undefined);
});

test('mux over wss, concurrency without mux, a mux that is not true or false: one problem naming the way', () => {
  const problems = (row) => blinksocks.validate({ impl: 'blinksocks', presets: GCM, ...row });
  assert.deepEqual(problems({ transport: 'wss', mux: true }), [
    {
      field: 'mux',
      message:
        "blinksocks 3.3.0's mux does not run over wss (its client exits at the first connection): give transport 'ws' or 'tls', or drop mux",
    },
  ]);
  assert.match(problems({ concurrency: 4 })[0].message, /belongs to mux: give mux: true/);
  assert.match(problems({ mux: 'yes' })[0].message, /must be true or false/);
  assert.match(problems({ mux: true, concurrency: 0 })[0].message, /from 1 to 1024/);
  assert.ok(blinksocks.fields.includes('mux') && blinksocks.fields.includes('concurrency'));
});
