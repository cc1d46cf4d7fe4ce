import { after, before } from 'node:test';
import { AEAD_METHODS } from '../../lib/crypto/aead-methods.js';
import { stopAll } from './processes.js';
import { startUdpEchoServer } from './udp-echo.js';

// What the UDP relay suites share: the chain a method is carried in, the
// flag that turns UDP on in our relays, and the echo target of a describe.

export const UDP = ['--udp'];

// The Shadowsocks chain of `method`, as a reference implementation's -m
// names it: SIP022 for a 2022 method, else ss-base with the AEAD or stream
// cipher.
export function udpChain(method) {
  if (method.startsWith('2022-')) return [{ name: 'ss-2022', params: { method } }];
  return [
    { name: 'ss-base' },
    { name: AEAD_METHODS[method] ? 'ss-aead-cipher' : 'ss-stream-cipher', params: { method } },
  ];
}

// In the describe that calls it: a UDP echo target (udp-echo.js) started
// before the describe's own before hooks run, and closed after its tests,
// once every process they started is stopped. The object returned is
// empty until then, and then has the target's port, receivedFor and close.
export function udpEchoForSuite() {
  const echo = {};
  before(async () => {
    Object.assign(echo, await startUdpEchoServer());
  });
  after(async () => {
    await stopAll();
    await echo.close?.();
  });
  return echo;
}
