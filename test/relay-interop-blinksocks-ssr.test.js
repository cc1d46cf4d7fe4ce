import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CATALOGUE } from '../lib/presets/index.js';
import { isProtocolError } from '../lib/wire/protocol-error.js';
import blinksocks from '../lib/peers/blinksocks.js';
import { listeningInodes } from '../lib/process/socket-table.js';
import { sharedEchoTarget } from './support/interop.js';
import { freePorts } from './support/ports.js';
import { startProcess, startRelayClient, startRelayServer, stopAll } from './support/processes.js';
import { SSR_PROTOCOLS, ssrChain } from './support/ssr.js';
import { echoTransfer } from '../benchmark/programs/support/transfer.js';

// Our SSR presets against blinksocks 3.3.0's, both ways, for blinksocks'
// own SSR cases (aes-256-ctr under auth_aes128, none under auth_chain).
// blinksocks' auth_aes128 writes a one-byte padding length wrongly about
// once in 256 chunks (see the last test and docs/blinksocks.md), so these
// transfers are short, 32 KB (a few chunks each way), and a transfer that
// comes back changed is tried again, up to three times: the chance that
// all three meet the defect is below one in a thousand.
const PEERS = fileURLToPath(new URL('../.ci/peers', import.meta.url));
const KEY = 'ssr-blinksocks-password';
const SIZE = 32 * 1024;
const CASES = Object.keys(SSR_PROTOCOLS).map((preset) => [
  preset,
  preset.startsWith('ssr-auth-aes128') ? 'aes-256-ctr' : 'none',
]);

async function locateBlinksocks(t) {
  const { found, missing } = await blinksocks.locate({}, { env: { CIPHERBENCH_BLINKSOCKS: PEERS } });
  if (found) return found;
  const message = `needs ${missing}; ${blinksocks.hint}`;
  if (process.env.CI === 'true') throw new Error(message);
  t.skip(message);
  return null;
}

async function transferWithRetries(port) {
  let result;
  for (let attempt = 0; attempt < 3; attempt++) {
    result = await echoTransfer({ port, size: SIZE, timeoutMs: 10_000 }).catch((error) => ({ error }));
    if (!result.error && result.returned === result.sent) return result;
  }
  return result;
}

describe("wire compatibility with blinksocks 3.3.0's SSR presets", () => {
  const echo = sharedEchoTarget();

  for (const [preset, method] of CASES) {
    test(`${preset} over ${method}`, { timeout: 60_000 }, async (t) => {
      const found = await locateBlinksocks(t);
      if (!found) return;
      const presets = ssrChain(preset, method);
      // blinksocks is told its ports; ours reads its own back.
      const [serverPort, clientPort] = await freePorts(2);
      const plan = await blinksocks.plan(
        { presets },
        { ports: { server: serverPort, client: clientPort, target: echo.port }, key: KEY, found },
      );
      t.after(async () => {
        await stopAll();
        await plan.cleanup();
      });
      // blinksocks' server with our client before it; then our server
      // where blinksocks' server was, with blinksocks' client before it.
      // blinksocks logs nothing when ready: its listening socket says so.
      const [server, client] = plan.relays;
      const [, ourClient] = await Promise.all([
        startProcess(server.file, server.args).then(() => waitListening(serverPort)),
        startRelayClient({ serverPort, forwardPort: echo.port, key: KEY, presets }),
      ]);
      const fromOurs = await transferWithRetries(ourClient.port);
      assert.ok(!fromOurs.error, `ours -> blinksocks: ${fromOurs.error?.message}`);
      assert.equal(fromOurs.returned, fromOurs.sent, 'ours -> blinksocks: data came back changed');

      await stopAll();
      await Promise.all([
        startRelayServer({ port: serverPort, key: KEY, presets }),
        startProcess(client.file, client.args).then(() => waitListening(clientPort)),
      ]);
      const fromBlinksocks = await transferWithRetries(clientPort);
      assert.ok(!fromBlinksocks.error, `blinksocks -> ours: ${fromBlinksocks.error?.message}`);
      assert.equal(fromBlinksocks.returned, fromBlinksocks.sent, 'blinksocks -> ours: data came back changed');
    });
  }

  // blinksocks 3.3.0 pads a chunk with `len` random bytes, len < 256, and
  // writes the one-byte length field as len + 1 when its coin says so: 254
  // becomes 0xff (which means "a two-byte length follows") and 255 wraps to
  // 0. ShadowsocksR (and our decoder, which follows it) reads either as a
  // different padding, so about one chunk in 256 comes out wrong. Here its
  // own chunk encoder is run 4000 times, one chunk each, into ours.
  test("blinksocks' auth_aes128 padding length defect", (t) => {
    let Preset;
    try {
      const require = createRequire(path.join(PEERS, 'noop.js'));
      Preset = require('blinksocks/lib/presets/ssr-auth-aes128.js').default;
    } catch (error) {
      if (process.env.CI === 'true') throw error;
      t.skip(`needs blinksocks 3.3.0 in .ci/peers: ${blinksocks.hint}`);
      return;
    }
    const userKey = Buffer.alloc(32, 7);
    const payload = Buffer.from('sixteen bytes!!!');
    const ours = CATALOGUE.named('ssr-auth-aes128-md5').prepare({}, {});
    const wrongFields = new Set();
    let wrong = 0;
    for (let trial = 0; trial < 4000; trial++) {
      const theirs = new Preset();
      theirs._userKey = userKey;
      const [chunk] = theirs.createChunks(payload);
      const decode = ours({
        layers: { streamCipher: { key: userKey, sentIv: Buffer.alloc(16), receivedIv: null } },
      }).clientDecode;
      const out = [];
      try {
        decode(chunk, (data) => out.push(data));
      } catch (error) {
        assert.ok(isProtocolError(error), error.message);
      }
      if (!Buffer.concat(out).equals(payload)) {
        wrong += 1;
        wrongFields.add(chunk[4]);
      }
    }
    assert.ok(wrong > 0, 'no chunk of 4000 came out wrong: has blinksocks been fixed?');
    assert.ok(wrong < 60, `${wrong} of 4000 chunks wrong, far more than one in 256`);
    assert.deepEqual(
      [...wrongFields].filter((field) => field !== 0x00 && field !== 0xff),
      [],
      'only the padding lengths 0x00 and 0xff go wrong',
    );
  });
});

async function waitListening(port) {
  for (let i = 0; i < 200; i++) {
    if ((await listeningInodes(port))?.size > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`nothing listens on ${port}`);
}
