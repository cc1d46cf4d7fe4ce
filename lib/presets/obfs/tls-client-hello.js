import { protocolError } from '../../wire/protocol-error.js';

// Reads what the server side of obfs-tls1.2-ticket needs from a ClientHello
// handshake message ([type][length, 3 bytes][body], RFC 5246 7.4.1.2): the
// session id, the cipher suites and extensions offered, and the host names
// of server_name (RFC 6066 3). Every length is checked against what
// remains, so a malformed hello is a protocol error, never a read past the
// end.
const SERVER_NAME = 0x0000;
const HOST_NAME = 0;

function reader(bytes, what) {
  let offset = 0;
  const need = (length) => {
    if (offset + length > bytes.length) throw protocolError(`malformed TLS ClientHello: ${what} runs past its end`);
  };
  return {
    u8() {
      need(1);
      return bytes[offset++];
    },
    u16() {
      need(2);
      offset += 2;
      return bytes.readUInt16BE(offset - 2);
    },
    take(length) {
      need(length);
      offset += length;
      return bytes.subarray(offset - length, offset);
    },
    get left() {
      return bytes.length - offset;
    },
  };
}

function serverNames(body) {
  const list = reader(body, 'server_name');
  const names = reader(list.take(list.u16()), 'server_name list');
  const found = [];
  while (names.left > 0) {
    const type = names.u8();
    const name = names.take(names.u16());
    if (type === HOST_NAME) found.push(name.toString('latin1'));
  }
  return found;
}

// message: the whole handshake message.
export function readClientHello(message) {
  const hello = reader(message.subarray(4), 'hello');
  hello.take(2 + 32); // client_version, random
  const sessionId = hello.take(hello.u8());
  const suites = hello.take(hello.u16());
  if (suites.length % 2 !== 0) throw protocolError('malformed TLS ClientHello: odd cipher_suites length');
  hello.take(hello.u8()); // compression methods
  const extensions = new Map();
  if (hello.left > 0) {
    const list = reader(hello.take(hello.u16()), 'extensions');
    while (list.left > 0) {
      const type = list.u16();
      extensions.set(type, list.take(list.u16()));
    }
  }
  const cipherSuites = [];
  for (let i = 0; i < suites.length; i += 2) cipherSuites.push(suites.readUInt16BE(i));
  return {
    sessionId,
    cipherSuites,
    extensions: new Set(extensions.keys()),
    serverNames: extensions.has(SERVER_NAME) ? serverNames(extensions.get(SERVER_NAME)) : [],
  };
}
