import { readFile } from 'node:fs/promises';

// The inodes of the sockets listening on a TCP port, as socket:[inode]
// links, from the kernel's own tables; null when there are none to read
// (no /proc: macOS, Windows). With `pid`, the tables of that process's
// network namespace, which is not this one's when it runs on a link.
// With `udp`, the UDP sockets bound to the port instead: a QUIC server
// (Hysteria2, TUIC) serves on UDP and listens on no TCP port.
export async function listeningInodes(port, pid = null, { udp = false } = {}) {
  const inodes = new Set();
  let readable = false;
  const root = pid === null ? '/proc/net' : `/proc/${pid}/net`;
  const [tables, state] = udp ? [['udp', 'udp6'], '07'] : [['tcp', 'tcp6'], '0A'];
  for (const table of tables.map((name) => `${root}/${name}`)) {
    let text;
    try {
      text = await readFile(table, 'utf8');
    } catch {
      continue;
    }
    readable = true;
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT; state 0A is TCP's LISTEN, 07 an
      // unconnected (bound) UDP socket; inode is field 9.
      if (fields.length < 10 || fields[3] !== state) continue;
      if (parseInt(fields[1].split(':')[1], 16) === port) inodes.add(`socket:[${fields[9]}]`);
    }
  }
  return readable ? inodes : null;
}
