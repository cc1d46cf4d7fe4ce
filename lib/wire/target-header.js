import { createByteQueue } from './byte-queue.js';

// The two halves of an address preset, whose stream opens with a header
// naming the target: the client sends it ahead of the first bytes; the
// server holds what arrives until headerLength(queue) says the header is
// whole (its length, or 0 while more bytes are needed), names the target
// from decodeHeader(header) and passes the rest on. With firstBytes the
// header never leaves alone: an empty first write waits for data.
export function targetHeaderStages(connection, { encodeHeader, headerLength, decodeHeader, firstBytes = false }) {
  let headerSent = false;
  // The server's, made at its first read: a client has none.
  let headerQueue;
  return {
    clientEncode(data, push) {
      if (headerSent) return push(data);
      if (firstBytes && data.length === 0) return;
      headerSent = true;
      push(Buffer.concat([encodeHeader(connection.target), data]));
    },
    serverDecode(data, push) {
      if (headerQueue === null) return push(data);
      headerQueue ??= createByteQueue();
      headerQueue.push(data);
      const length = headerLength(headerQueue);
      if (length === 0) return;
      connection.onTarget(decodeHeader(headerQueue.take(length)));
      const rest = headerQueue.takeAll();
      headerQueue = null;
      if (rest.length > 0) push(rest);
    },
  };
}
