import tls from 'node:tls';
import { bindClosingAll } from '../relay/listener.js';

// The web site a camouflage protocol borrows its TLS handshake from, on
// loopback so nothing leaves the machine: a REALITY server (Xray, sing-box)
// forwards each ClientHello to it and copies its answer's shape, and a
// ShadowTLS v3 server relays the whole handshake to it. Both need TLS 1.3
// with X25519, which node:tls offers by default. A client that finishes
// the handshake with the site itself (a prober) gets a small page and a
// close, as from a real site. The runner starts it as a process of the
// case; the peers that need it say so.
const PAGE =
  'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 13\r\nConnection: close\r\n\r\n<p>hello</p>\n';
const HEAD_LIMIT = 16 * 1024;
const IDLE_MS = 10_000;

// `cert` and `key`: the run's certificate and key, PEM.
export async function startTlsSite({ host = '127.0.0.1', port = 0, cert, key }) {
  const server = tls.createServer({ cert, key, minVersion: 'TLSv1.2', ALPNProtocols: ['h2', 'http/1.1'] }, (socket) => {
    let head = '';
    socket.setEncoding('latin1');
    socket.setTimeout(IDLE_MS, () => socket.destroy());
    socket.on('data', (data) => {
      head += data;
      if (head.includes('\r\n\r\n') || head.length > HEAD_LIMIT) socket.end(PAGE);
    });
  });
  // A handshake that fails (a probe, a client that gave up) is the client's business.
  server.on('tlsClientError', () => {});
  return bindClosingAll(server, { host, port });
}
