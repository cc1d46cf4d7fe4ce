import { open, readFile } from 'node:fs/promises';

// The inodes of the sockets listening on a TCP port, as socket:[inode]
// links, from the kernel's own tables; null when there are none to read
// (no /proc: macOS, Windows). With `pid`, the tables of that process's
// network namespace, which is not this one's when it runs on a link.
// With `udp`, the UDP sockets bound to the port instead: a QUIC server
// (Hysteria2, TUIC) serves on UDP and listens on no TCP port.
export async function listeningInodes(port, pid = null, { udp = false } = {}) {
  const root = pid === null ? '/proc/net' : `/proc/${pid}/net`;
  const [tables, state] = udp ? [['udp', 'udp6'], '07'] : [['tcp', 'tcp6'], '0A'];
  const texts = await readTables(root, tables, udp ? readFile : readListeners);
  if (texts.length === 0) return null;
  return new Set(texts.flatMap((text) => inodesIn(text, port, state)).map((inode) => `socket:[${inode}]`));
}

// The text of each of the kernel's tables `names` under `root` (/proc/net)
// that can be read, in order: none where there is no /proc.
export async function readTables(root, names, read = readFile) {
  const texts = [];
  for (const name of names) {
    try {
      texts.push(await read(`${root}/${name}`, 'utf8'));
    } catch {
      // Absent (no IPv6, no /proc): the others say what there is.
    }
  }
  return texts;
}

// The listening lines of a TCP table, read no further. Linux writes its
// listening sockets first (tcp_seq_start walks the listening hash, then
// the established one, where TIME_WAIT sockets are), so they all come
// before the first line in another state: after a request benchmark with a
// new connection per request, tens of thousands of TIME_WAIT lines follow,
// and a whole read of them took seconds a poll on a machine at load 21,
// long enough for a readiness wait of 40 s to run out (2026-11-29).
const READ_BYTES = 65536;
const NOT_LISTENING = /^ *\d+: [0-9A-F]+:[0-9A-F]+ [0-9A-F]+:[0-9A-F]+ (?!0A)[0-9A-F]{2} /m;
export async function readListeners(path) {
  const file = await open(path);
  try {
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    let text = '';
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, READ_BYTES, null);
      if (bytesRead === 0) return text;
      text += buffer.toString('latin1', 0, bytesRead);
      const other = NOT_LISTENING.exec(text);
      if (other) return text.slice(0, other.index);
    }
  } finally {
    await file.close();
  }
}

// The inodes of the lines of one table whose local port is `port` and
// whose state is `state`. One pattern over the whole text, not a split
// of every line: after a request benchmark with a new connection per
// request the tables hold tens of thousands of TIME_WAIT lines (41,758
// seen, 390 ms a read that way on a loaded machine, read every 25 ms by
// each readiness wait).
export function inodesIn(text, port, state) {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  if (!text.includes(`:${hexPort} `)) return [];
  // sl: local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
  const line = new RegExp(`^ *\\d+: [0-9A-F]+:${hexPort} [0-9A-F]+:[0-9A-F]+ ${state} (?:\\S+ +){5}(\\d+)`, 'gm');
  return Array.from(text.matchAll(line), (match) => match[1]);
}
