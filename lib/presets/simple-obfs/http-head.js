import { protocolError } from '../../wire/protocol-error.js';

// An HTTP head (start line and header fields, up to the blank line) at the
// start of a stream. simple-obfs' own heads are under 512 bytes; a peer that
// sends more than this without a blank line is not simple-obfs.
export const MAX_HEAD = 8192;
const END = Buffer.from('\r\n\r\n');

// Collects a stream's first bytes until its head is complete: returns null
// until then, and then { head, rest }: the text before the blank line
// (latin1, so any byte maps to one character) and the bytes after it.
export function createHeadReader(what) {
  let held = Buffer.alloc(0);
  return (data) => {
    // Only the last three held bytes can start an END that `data` finishes.
    const from = Math.max(0, held.length - (END.length - 1));
    held = held.length === 0 ? data : Buffer.concat([held, data]);
    const end = held.indexOf(END, from);
    if (end < 0) {
      if (held.length > MAX_HEAD) throw protocolError(`${what} head longer than ${MAX_HEAD} bytes`);
      return null;
    }
    if (end > MAX_HEAD) throw protocolError(`${what} head longer than ${MAX_HEAD} bytes`);
    return { head: held.toString('latin1', 0, end), rest: held.subarray(end + END.length) };
  };
}

// Splits a head into its start line and a Map of lower-cased field names to
// values; a field line without a colon, or a repeated field, is refused.
export function parseHead(what, head) {
  const [startLine, ...lines] = head.split('\r\n');
  const fields = new Map();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw protocolError(`${what}: malformed header line ${JSON.stringify(line.slice(0, 64))}`);
    const name = line.slice(0, colon).trim().toLowerCase();
    if (fields.has(name)) throw protocolError(`${what}: header ${name} given twice`);
    fields.set(name, line.slice(colon + 1).trim());
  }
  return { startLine, fields };
}
