// What both relay roles share: a set of live sockets, and a listen() that
// reports the bound address and can close everything it opened.
export function createSocketSet() {
  const sockets = new Set();
  return {
    add(socket) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      return socket;
    },
    get size() {
      return sockets.size;
    },
    destroyAll() {
      for (const socket of sockets) socket.destroy();
    },
  };
}

export function listen(server, endpoint, sockets, log) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(endpoint.port, endpoint.host, () => {
      server.off('error', reject);
      server.on('error', (error) => log.error(error.message));
      const address = server.address();
      resolve({
        address: { host: address.address, port: address.port },
        connections: () => sockets.size,
        close() {
          sockets.destroyAll();
          return new Promise((done) => server.close(() => done()));
        },
      });
    });
  });
}
