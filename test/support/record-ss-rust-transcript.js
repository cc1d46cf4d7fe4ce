// Records one shadowsocks-rust SIP022 session for test/fixtures/: sslocal's
// request stream (read here as a stand-in server) and ssserver's response
// stream to that very request (sent here as a stand-in client), with a
// fixed key. Prints the JSON; run in a network namespace with ssserver and
// sslocal on PATH:
//   unshare -n sh -c 'ip link set lo up && node test/support/record-ss-rust-transcript.js' > test/fixtures/ss-2022-transcripts.json
import { once } from 'node:events';
import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { AEAD_2022_METHODS } from '../../lib/crypto/aead-2022-methods.js';
import { startEchoServer } from './echo-server.js';
import { freePort } from './ports.js';
import { startProcess, stopAll } from './processes.js';

const PAYLOAD = Buffer.from('GET / HTTP/1.1\r\nHost: cipherbench\r\n\r\n');
const READY = /listening on /;

const listenOn = async (server) => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server.address().port;
};

// Everything a socket sends within `ms` of its first byte.
const collect = (socket, ms) =>
  new Promise((resolve) => {
    const parts = [];
    socket.on('data', (data) => {
      if (parts.length === 0) setTimeout(() => resolve(Buffer.concat(parts)), ms);
      parts.push(data);
    });
  });

async function record(method, key, echoPort) {
  let requestSeen;
  const standIn = net.createServer((socket) => {
    requestSeen = collect(socket, 500);
  });
  const standInPort = await listenOn(standIn);
  const tunnel = await startProcess(
    'sslocal',
    [
      '--protocol',
      'tunnel',
      '-b',
      '127.0.0.1:0',
      '--forward-addr',
      `127.0.0.1:${echoPort}`,
      '-s',
      `127.0.0.1:${standInPort}`,
      '-k',
      key,
      '-m',
      method,
    ],
    { ready: READY },
  );
  const tunnelPort = Number(/TCP tunnel listening on 127\.0\.0\.1:(\d+)/.exec(tunnel.output)[1]);
  const client = net.connect(tunnelPort, '127.0.0.1');
  client.on('error', () => {});
  client.write(PAYLOAD);
  await delay(200);
  const request = await requestSeen;
  client.destroy();
  standIn.close();

  // ssserver refuses port 0: any free port will do inside the namespace.
  const serverPort = await freePort();
  await startProcess('ssserver', ['-s', `127.0.0.1:${serverPort}`, '-k', key, '-m', method], { ready: READY });
  const upstream = net.connect(serverPort, '127.0.0.1');
  upstream.write(request);
  const response = await collect(upstream, 500);
  upstream.destroy();
  await stopAll();
  return {
    method,
    key,
    target: { host: '127.0.0.1', port: echoPort },
    payload: PAYLOAD.toString('hex'),
    request: request.toString('hex'),
    response: response.toString('hex'),
  };
}

const echo = await startEchoServer();
const transcripts = [];
for (const method of Object.keys(AEAD_2022_METHODS)) {
  const { keyLength } = AEAD_2022_METHODS[method];
  const key = Buffer.from(Array.from({ length: keyLength }, (_, i) => i)).toString('base64');
  transcripts.push(await record(method, key, echo.port));
}
await echo.close();
process.stdout.write(
  `${JSON.stringify({ recorded: new Date().toISOString(), by: 'shadowsocks-rust 1.25.0', transcripts }, null, 2)}\n`,
);
