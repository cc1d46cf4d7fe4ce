import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startEchoServer } from './support/echo-server.js';
import { freePort } from './support/ports.js';
import { CLI, startProcess, stopAll } from './support/processes.js';
import { requirePrograms } from './support/programs.js';
import { echoTransfer } from '../benchmark/programs/support/transfer.js';

// A key given as bytes that are not UTF-8 (here the single byte 0xFF, as a
// Latin-1 terminal types ÿ) derives the master key shadowsocks-libev
// derives from the same bytes: ss-tunnel -> our server -> echo carries 1 MB
// intact. Node alone would have read the byte as U+FFFD (EF BF BD).
// The arguments go through sh, since Node can only pass UTF-8 to a child.
const PRESETS = JSON.stringify([{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }]);
const RAW_KEY = '"$(printf \'\\377\')"';

after(stopAll);

test('a non-UTF-8 key derives the same master key as shadowsocks-libev', { timeout: 30_000 }, async (t) => {
  if (!requirePrograms(t, 'ss-tunnel')) return;
  const echo = await startEchoServer();
  t.after(() => echo.close());
  const server = await startProcess(
    'sh',
    [
      '-c',
      `exec "${process.execPath}" "${CLI}" relay server --listen 127.0.0.1:0 --key ${RAW_KEY} --presets '${PRESETS}'`,
    ],
    {
      ready: /listening on/,
    },
  );
  const serverPort = Number(/listening on \S+:(\d+)/.exec(server.output)[1]);
  const tunnelPort = await freePort();
  await startProcess(
    'sh',
    [
      '-c',
      `exec ss-tunnel -s 127.0.0.1 -p ${serverPort} -b 127.0.0.1 -l ${tunnelPort} -L 127.0.0.1:${echo.port} -m aes-256-gcm -k ${RAW_KEY}`,
    ],
    { ready: /listening at/, listening: tunnelPort },
  );
  const result = await echoTransfer({ port: tunnelPort, size: 1024 * 1024, timeoutMs: 10_000 });
  assert.equal(result.returned, result.sent, 'the bytes came back intact through ss-tunnel and our server');
});
