import assert from 'node:assert/strict';
import { test } from 'node:test';
import { caseLedger } from '../../lib/runner/case-summary.js';
import { bulkWorkload } from '../../lib/workload/index.js';

// A reference row's own fields are its identity; what our relay client's
// transports negotiated is the case's `negotiated`, a field of its own, so
// an Xray row's `transport: 'ws'` reaches the result as the row gave it
// (result version 6 overwrote it with the summary, null for a peer).
const side = (bitsPerSecond) => ({ bytes: 1e8, seconds: 1, bits_per_second: bitsPerSecond });
const run = (round, negotiated) => ({
  round,
  status: 'ok',
  reason: null,
  sender: side(2e9),
  receiver: side(2e9),
  wallSeconds: 1,
  cost: null,
  negotiated,
});

test("a reference row keeps its own transport; the chain's negotiated transport is apart", () => {
  const xray = { impl: 'xray', protocol: 'vless', transport: 'ws', label: 'xray vless + ws' };
  const chain = { presets: [{ name: 'ss-base' }, { name: 'ws' }] };
  const ledger = caseLedger({
    slots: [
      { index: 0, direction: 'forward', ...xray },
      { index: 1, direction: 'forward', ...chain },
    ],
    found: new Map([
      [0, {}],
      [1, {}],
    ]),
    workload: bulkWorkload,
    settings: { parallel: 1, confidence: null, rate: null },
    anchorIndex: null,
  });
  const said = 'ws /cipherbench, Host localhost';
  for (const round of [0, 1]) {
    ledger.record(0, run(round, null), {});
    ledger.record(1, run(round, said), {});
  }
  const [row, ours] = ledger.all();
  assert.deepEqual([row.transport, row.negotiated], ['ws', null]);
  assert.deepEqual(['transport' in ours, ours.negotiated], [false, said]);
  assert.deepEqual(
    ours.runs.map((one) => one.round),
    [0, 1],
  );
});
