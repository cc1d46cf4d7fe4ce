import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateReference } from '../../lib/peers/index.js';
import { v2rayClientConfig } from '../../lib/peers/v2ray.js';
import { xrayClientConfig } from '../../lib/peers/xray.js';

// The V2Ray and Xray rows' Mux.Cool fields: checked before anything
// starts, and written into the client's outbound as their configs take it.
const problems = (row) => validateReference(row).map(({ field, message }) => `${field}: ${message}`);

test('mux and concurrency on xray and v2ray rows', () => {
  assert.deepEqual(problems({ impl: 'xray', protocol: 'vless', mux: true, concurrency: 16 }), []);
  assert.deepEqual(problems({ impl: 'v2ray', security: 'aes-128-gcm', mux: true }), []);
  assert.deepEqual(problems({ impl: 'xray', protocol: 'vless', concurrency: 16 }), [
    'concurrency: belongs to mux: give mux: true',
  ]);
  assert.deepEqual(problems({ impl: 'v2ray', security: 'aes-128-gcm', mux: true, concurrency: 0 }), [
    'concurrency: must be an integer from 1 to 1024',
  ]);
  assert.deepEqual(problems({ impl: 'xray', protocol: 'vless', mux: 'yes' }), ['mux: must be true or false']);
  assert.deepEqual(problems({ impl: 'xray', protocol: 'vless', tls: true, flow: 'xtls-rprx-vision', mux: true }), [
    'mux: Vision carries one connection a tunnel: drop mux or flow',
  ]);
});

test("mux in the client's outbound", () => {
  const user = {
    protocol: 'vless',
    id: 'b831381d-6324-4d53-ad4f-8cda48b30811',
    port: 1,
    serverPort: 2,
    forwardPort: 3,
  };
  assert.deepEqual(xrayClientConfig({ ...user, mux: 8 }).outbounds[0].mux, { enabled: true, concurrency: 8 });
  assert.equal(xrayClientConfig(user).outbounds[0].mux, undefined);
  assert.deepEqual(v2rayClientConfig({ ...user, mux: 4 }).outbounds[0].mux, { enabled: true, concurrency: 4 });
});
