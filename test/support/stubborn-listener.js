import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

// A relay that will not stop: it ignores SIGINT and SIGTERM, listens on
// its first argument (host:port), accepts and holds every connection, and
// once listening writes a file named for its pid into
// $CIPHERBENCH_TEST_STUBBORN_DIR. Only SIGKILL ends it: a run that exits
// without waiting for its children leaves it behind.
for (const name of ['SIGINT', 'SIGTERM']) process.on(name, () => {});
const [listen] = process.argv.slice(2);
const colon = listen.lastIndexOf(':');
const held = [];
const server = net.createServer((socket) => {
  socket.on('error', () => {});
  held.push(socket);
});
server.listen(Number(listen.slice(colon + 1)), listen.slice(0, colon), () => {
  writeFileSync(path.join(process.env.CIPHERBENCH_TEST_STUBBORN_DIR, String(process.pid)), '');
});
