import { closeSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// obfs-http's template: request/response pairs in blinksocks' format. Each
// line of text becomes that line plus CRLF; a line starting with '-' or '='
// closes the part before it and adds one more CRLF (the blank line that
// ends an HTTP header). Parts alternate request, response, request, ...;
// blinksocks writes '------' between a request and its response and '======'
// between pairs, but reads either mark as either. The bytes are exactly
// those blinksocks 3.3.0 derives from the same file, so one file serves
// both implementations.
export const DEFAULT_TEMPLATE = fileURLToPath(new URL('./http-default.txt', import.meta.url));

// A template is a handful of HTTP headers; a bigger file is the wrong file.
const MAX_FILE_BYTES = 64 * 1024;

// Returns [{ request, response }] or throws an Error whose message says
// what is wrong with the file, for the chain's validation message.
function readBounded(file) {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(MAX_FILE_BYTES + 1);
    let length = 0;
    for (let read = -1; read !== 0 && length < buffer.length; length += read)
      read = readSync(fd, buffer, length, buffer.length - length, null);
    if (length > MAX_FILE_BYTES) throw new Error(`${file} is larger than ${MAX_FILE_BYTES} bytes: not a template`);
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}

export function readTemplate(file) {
  const resolved = path.resolve(file);
  let text;
  try {
    // A device (/dev/zero), a FIFO or a socket reports size 0 and reads
    // without end: only a regular file is read, and no more of it than the
    // bound, should it grow after the check.
    const stats = statSync(resolved);
    if (!stats.isFile() && !stats.isDirectory())
      throw new Error(`${resolved} is not a regular file (a device, FIFO or socket): not a template`);
    if (stats.size > MAX_FILE_BYTES)
      throw new Error(`${resolved} is larger than ${MAX_FILE_BYTES} bytes: not a template`);
    text = readBounded(resolved);
  } catch (error) {
    throw error.code ? new Error(`cannot read ${resolved}: ${READ_ERRORS[error.code] ?? error.code}`) : error;
  }
  return parseTemplate(text, resolved);
}

const READ_ERRORS = { ENOENT: 'no such file', EISDIR: 'it is a folder', EACCES: 'permission denied' };

export function parseTemplate(text, where = 'the template') {
  const parts = [];
  let part = '';
  let unclosed = false;
  for (const line of text.split(/\r\n|\n|\r/)) {
    if (line[0] === '-' || line[0] === '=') {
      if (part !== '') parts.push(`${part}\r\n`);
      part = '';
      unclosed = false;
    } else {
      part += `${line}\r\n`;
      // The split leaves one empty string after a final newline; that is
      // not a line of the template.
      unclosed = unclosed || line !== '';
    }
  }
  // blinksocks silently drops a part no mark line follows: refuse it, so
  // that every file accepted here means the same pairs to both.
  if (unclosed) throw new Error(`${where}: the last part has no '------' or '======' line after it`);
  if (parts.length === 0)
    throw new Error(
      `${where}: no request/response pair ('------' between request and response, '======' after each pair)`,
    );
  if (parts.length % 2 !== 0)
    throw new Error(`${where}: ${parts.length} parts, but each request needs a response after a '------' line`);
  const pairs = [];
  for (let i = 0; i < parts.length; i += 2)
    pairs.push({ request: Buffer.from(parts[i]), response: Buffer.from(parts[i + 1]) });
  // The server takes the first request the stream starts with; if one
  // request began another, the longer one's tail would be read as data.
  for (const a of pairs) {
    for (const b of pairs) {
      if (a.request.length < b.request.length && b.request.subarray(0, a.request.length).equals(a.request)) {
        throw new Error(
          `${where}: request ${JSON.stringify(firstLine(a.request))} is the start of a longer one, so the server could not tell them apart`,
        );
      }
    }
  }
  return pairs;
}

const firstLine = (buffer) => buffer.toString('utf8').split('\r\n')[0];
