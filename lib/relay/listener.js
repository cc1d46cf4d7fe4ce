import { createSocketList } from './socket-list.js';
import { resetSocket } from './reset-socket.js';
import { setAcceptedSocketOptions } from './socket-options.js';

const ignore = () => {};
// A closed socket is left pointing at nothing of its connection. Its
// listeners (the bridge's, the handshake's) reach the whole pipeline, and
// Node 24 keeps a closed socket through the next scavenge or two: an
// aes-128-gcm connection promoted 11.3 KB, 4.5 KB once this ran, `plain`
// 5.8 KB and 0.5-1.0 (docs/notes/gc-promotion.md). It runs after the
// 'close' event's other listeners; an error after it has nobody to tell.
function forgetListeners(socket) {
  socket.removeAllListeners();
  socket.on('error', ignore);
}

// What both relay roles share: a set of live sockets, and a listen() that
// reports the bound address and can close everything it opened.
export function createSocketSet() {
  const sockets = createSocketList();
  return {
    add(socket) {
      const node = sockets.add(socket);
      socket.on('close', () => {
        sockets.remove(node);
        setImmediate(forgetListeners, socket);
      });
      return socket;
    },
    get size() {
      return sockets.size;
    },
    // A relay that stops (SIGTERM, SIGINT) resets what it carries: an
    // application whose download was cut must not see a clean end.
    resetAll() {
      for (const socket of sockets.items()) resetSocket(socket);
    },
  };
}

// Resolves with the bound { host, port } once `server` listens, or rejects
// with the listen error (a busy port, say).
export function bindServer(server, { host, port }) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve({ host: address.address, port: address.port });
    });
  });
}

// A target's server (echo, HTTP, the borrowed TLS site), bound: its
// connections are counted from accept, one that resets is its own
// business (never another's), and close() destroys every one still open
// before the server closes. Resolves with { address, close }.
export async function bindClosingAll(server, { host, port }) {
  const sockets = new Set();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  const address = await bindServer(server, { host, port });
  return {
    address,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export async function listen(server, endpoint, sockets, log) {
  const address = await bindServer(server, endpoint);
  setAcceptedSocketOptions(server);
  server.on('error', (error) => log.error(error.message));
  return {
    address,
    connections: () => sockets.size,
    close() {
      sockets.resetAll();
      return new Promise((done) => server.close(() => done()));
    },
  };
}
