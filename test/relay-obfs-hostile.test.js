import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { clientHello } from '../lib/presets/obfs/tls-handshake.js';
import { sendHostile } from '../benchmark/programs/support/hostile.js';
import { startRelayServer, stopAll } from './support/processes.js';

// Our relay server behind each obfs disguise, under input no client of ours
// sends: each connection is closed for the disguise's own reason (read from
// the debug log) before anything reaches the cipher, and the process prints
// no stack. One server per disguise, on ports of the namespace's choosing.
const KEY = 'obfs-hostile-password';
const base = { name: 'ss-base' };
const gcm = { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } };
const hex = (text) => Buffer.from(text.replace(/\s/g, ''), 'hex');

after(stopAll);

async function serverFor(presets) {
  const relay = await startRelayServer({
    key: KEY,
    presets,
    extra: ['--log-level', 'debug', '--handshake-timeout', '2'],
  });
  const closedWith = async (bytes, reason) => {
    const before = relay.output.length;
    await sendHostile({ port: relay.port, bytes });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.match(relay.output.slice(before), reason);
  };
  return { relay, closedWith };
}

const noStack = (relay) => assert.doesNotMatch(relay.output, /\n\s+at |Uncaught|TypeError|RangeError/);

test(
  'obfs-tls1.2-ticket: garbage, an oversized record and a broken handshake are refused at the record',
  { timeout: 30_000 },
  async () => {
    const { relay, closedWith } = await serverFor([
      base,
      gcm,
      { name: 'obfs-tls1.2-ticket', params: { sni: 'test.com' } },
    ]);
    await closedWith(
      Buffer.from('GET / HTTP/1.1\r\nHost: test.com\r\n\r\n'),
      /expected a TLS Handshake record \(version 0x0301\), got type 0x47/,
    );
    await closedWith(hex('16 0301 ffff'), /TLS record of 65535 bytes exceeds 2\^14 \+ 2048/);
    await closedWith(
      Buffer.concat([clientHello('test.com'), hex('17 0303 0010'), randomBytes(16)]),
      /expected a TLS ChangeCipherSpec record/,
    );
    await closedWith(randomBytes(4096), /expected a TLS Handshake record/);
    noStack(relay);
  },
);

test(
  'obfs-http: a stream that does not open with a template request is refused at once',
  { timeout: 30_000 },
  async () => {
    const { relay, closedWith } = await serverFor([base, gcm, { name: 'obfs-http' }]);
    await closedWith(
      Buffer.from('POST /upload HTTP/1.1\r\n\r\n'),
      /does not open with an HTTP header of the obfs-http template/,
    );
    await closedWith(randomBytes(4096), /does not open with an HTTP header/);
    noStack(relay);
  },
);
