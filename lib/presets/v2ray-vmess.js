import { randomInt } from 'node:crypto';
import { randomView } from '../crypto/random-pool.js';
import * as aeadHeader from './vmess/aead-header.js';
import { createBodyDecoder, createBodyEncoder } from './vmess/body.js';
import { alterIds, cmdKey, UUID_ID_PARAM, uuidBytes } from './vmess/id.js';
import * as legacyHeader from './vmess/legacy-header.js';
import { decodeRequest, encodeRequest, MAX_REQUEST_LENGTH, OPTION, requestLength, SECURITY } from './vmess/request.js';
import { protocolError } from '../wire/protocol-error.js';

// V2Ray's VMess over TCP, as V2Ray 4.34 speaks it. The client picks the
// header kind as V2Ray's does: the AEAD header with alterId 0, the legacy
// MD5/timestamp header with alterId > 0 (authenticating as one of the alter
// IDs). The server, like V2Ray 4.34's, reads both: the user's UUID and its
// alterId alter IDs. The header codecs and the body codec live in vmess/.
const SECURITIES = ['aes-128-gcm', 'chacha20-poly1305', 'none', 'auto', 'zero'];
// V2Ray takes up to 65535, but a server keeps (1 + alterId) x 241 hashes
// (every second of its window, for every ID): 1024 is 247,000 of them, some
// 30 MB and half a second to build; V2Ray's own guides used 4 to 64.
const MAX_ALTER_ID = 1024;
// V2Ray's "auto": AES-GCM where Go has AES instructions for it, else ChaCha20.
const AUTO = ['x64', 'arm64', 's390x'].includes(process.arch) ? 'aes-128-gcm' : 'chacha20-poly1305';
const nowSeconds = () => Math.floor(Date.now() / 1000);

// The request's option and security byte for a security name, as V2Ray's
// outbound sets them: chunk stream always but for "zero" (4.35's raw body),
// masking with it, global padding with the AEAD securities.
function requestShape(security) {
  if (security === 'zero') return { option: 0, security: SECURITY.none };
  const name = security === 'auto' ? AUTO : security;
  const padding = name === 'none' ? 0 : OPTION.globalPadding;
  return { option: OPTION.chunkStream | OPTION.chunkMasking | padding, security: SECURITY[name] };
}

const RESPONSE_LENGTH = 4;
const responsePlain = (responseByte) => Buffer.from([responseByte, 0, 0, 0]);

export default {
  name: 'v2ray-vmess',
  summary:
    'V2Ray VMess over TCP: AEAD (alterId 0) or legacy MD5 header, chunked body sealed with AES-128-GCM or ChaCha20-Poly1305, masked lengths',
  roles: ['address', 'cipher'],
  // Its body is sealed unless the security is none or zero (V2Ray's raw body).
  authenticated: ({ security = 'aes-128-gcm' }) => security !== 'none' && security !== 'zero',
  params: {
    id: UUID_ID_PARAM,
    security: { required: false, values: SECURITIES, description: 'body cipher (default aes-128-gcm)' },
    alterId: {
      required: false,
      description: 'V2Ray alterId: 0 (default) sends the AEAD header, more sends the legacy header',
      check: (value) =>
        Number.isInteger(value) && value >= 0 && value <= MAX_ALTER_ID
          ? undefined
          : `must be an integer from 0 to ${MAX_ALTER_ID}`,
    },
  },
  prepare(params) {
    const uuid = uuidBytes(params.id);
    const key = cmdKey(uuid);
    const authKey = aeadHeader.authIdKey(key);
    const alters = alterIds(uuid, params.alterId ?? 0);
    const shape = requestShape(params.security ?? 'aes-128-gcm');
    // Built on a server's first legacy request, then shared by its connections.
    let authTable = null;
    const legacyAuth = () => (authTable ??= legacyHeader.createAuthTable([uuid, ...alters]));

    const context = { key, authKey, alters, shape, legacyAuth };
    return (connection) => {
      const client = clientStages(context, connection);
      const server = serverStages(context, connection);
      // One connection uses one side; the other side's ends do nothing.
      const ends = { ownEnded: false };
      return {
        ...client,
        ...server,
        encodeEnded: (push) => {
          ends.ownEnded = true;
          [client, server].forEach((side) => side.encodeEnded(push));
        },
        decodeEnded: () => [client, server].forEach((side) => side.decodeEnded(ends)),
      };
    };
  },
};

// The client's stages: the request header with the first bytes out, then
// the body; the response header, then the body, back.
function clientStages({ key, authKey, alters, shape }, connection) {
  const openSession = () => {
    // From the random pool: a call to the generator per connection for
    // each of these was 4% of a connection's protocol work.
    const bodyKey = randomView(16);
    const bodyIv = randomView(16);
    const responseByte = randomView(1)[0];
    const request = encodeRequest({
      bodyIv,
      bodyKey,
      responseByte,
      ...shape,
      target: connection.target,
      padding: randomView(randomView(1)[0] & 15),
    });
    let header;
    let secrets;
    if (alters.length === 0) {
      const authId = aeadHeader.createAuthId(authKey, nowSeconds());
      connection.salts.add(authId);
      header = aeadHeader.sealRequestHeader(key, authId, request);
      secrets = aeadHeader.responseSecrets(bodyKey, bodyIv);
    } else {
      const seconds =
        nowSeconds() + randomInt(-legacyHeader.CLIENT_TIME_JITTER_SECONDS, legacyHeader.CLIENT_TIME_JITTER_SECONDS + 1);
      connection.salts.add(Buffer.concat([bodyKey, bodyIv]));
      header = Buffer.concat([
        legacyHeader.authHash(alters[randomInt(alters.length)], seconds),
        legacyHeader.headerCipher(key, seconds).update(request),
      ]);
      secrets = legacyHeader.responseSecrets(bodyKey, bodyIv);
    }
    return { header, secrets, responseByte, body: { ...shape, key: bodyKey, iv: bodyIv } };
  };

  let session = null;
  let encodeBody = null;
  const clientEncode = (data, push) => {
    if (!encodeBody) {
      session = openSession();
      encodeBody = createBodyEncoder(session.body);
      push(session.header);
    }
    encodeBody(data, push);
  };

  const clientDecode = responseReader(() => session, alters.length === 0);
  return {
    clientEncode,
    clientDecode,
    encodeEnded: (push) => encodeBody?.end(push),
    // A client that sent its request waits for the server's end chunk.
    decodeEnded: (ends) => session && clientDecode.ended(ends),
  };
}

// What arrived before a header was whole: a header is at most a few hundred
// bytes, so that is one read or two, joined.
function heldBytes() {
  let bytes = Buffer.alloc(0);
  return {
    get bytes() {
      return bytes;
    },
    get length() {
      return bytes.length;
    },
    add(data) {
      bytes = bytes.length === 0 ? data : Buffer.concat([bytes, data]);
    },
    take(length) {
      const taken = bytes.subarray(0, length);
      bytes = bytes.subarray(length);
      return taken;
    },
    takeAll() {
      const all = bytes;
      bytes = null;
      return all;
    },
  };
}

// The server's stages: it reads the auth bytes, then the header they
// announce, then hands the rest to the body decoder; it answers with its
// response header before the first bytes from the target. Until the header
// is whole, what arrived is held (heldBytes).
function serverStages({ key, authKey, legacyAuth }, connection) {
  const held = heldBytes();
  let readHeader = null;
  let decodeBody = null;
  let responseHeader = null;
  let encodeResponse = null;
  const accept = (request, secrets, isAead) => {
    if (!Object.values(SECURITY).includes(request.security)) {
      throw protocolError(
        `unsupported security ${request.security}: aes-128-gcm (3), chacha20-poly1305 (4) and none (5) are carried`,
      );
    }
    const body = { option: request.option, security: request.security };
    decodeBody = createBodyDecoder({ ...body, key: request.bodyKey, iv: request.bodyIv });
    encodeResponse = createBodyEncoder({ ...body, key: secrets.key, iv: secrets.iv });
    const plain = responsePlain(request.responseByte);
    responseHeader = isAead
      ? aeadHeader.sealResponseHeader(secrets, plain)
      : legacyHeader.responseCipher(secrets).update(plain);
    connection.onTarget(request.target);
  };

  const readAeadHeader = () => {
    if (held.length < aeadHeader.PREFIX_LENGTH) return false;
    const { sealedLength, open } = aeadHeader.openRequestPrefix(key, held.take(aeadHeader.PREFIX_LENGTH));
    if (sealedLength - 16 > MAX_REQUEST_LENGTH)
      throw protocolError(`request header length ${sealedLength - 16} exceeds ${MAX_REQUEST_LENGTH}`);
    readHeader = () => {
      if (held.length < sealedLength) return false;
      const plain = open(held.take(sealedLength));
      if (requestLength(plain) !== plain.length)
        throw protocolError('request header length disagrees with its content');
      const request = decodeRequest(plain);
      accept(request, aeadHeader.responseSecrets(request.bodyKey, request.bodyIv), true);
      return true;
    };
    return readHeader();
  };

  // The legacy header is a stream cipher with no length: its bytes are
  // deciphered afresh from its start as they arrive until the plaintext
  // says how long it is.
  const readLegacyHeader = (seconds) => () => {
    const cipherText = held.bytes.subarray(legacyHeader.AUTH_LENGTH, legacyHeader.AUTH_LENGTH + MAX_REQUEST_LENGTH);
    const plain = legacyHeader.headerDecipher(key, seconds).update(cipherText);
    const length = requestLength(plain);
    if (length === 0) return false;
    held.take(legacyHeader.AUTH_LENGTH + length);
    const request = decodeRequest(plain.subarray(0, length));
    if (!connection.salts.add(Buffer.concat([request.bodyKey, request.bodyIv])))
      throw protocolError('replayed legacy request (body key and IV seen before)');
    accept(request, legacyHeader.responseSecrets(request.bodyKey, request.bodyIv), false);
    return true;
  };

  const readAuth = () => {
    if (held.length < aeadHeader.AUTH_ID_LENGTH) return false;
    const auth = held.bytes.subarray(0, aeadHeader.AUTH_ID_LENGTH);
    const now = nowSeconds();
    const aead = aeadHeader.openAuthId(authKey, auth, now);
    if (aead) {
      if (!aead.fresh)
        throw protocolError(
          `auth ID time ${aead.seconds} is more than ${aeadHeader.TIME_WINDOW_SECONDS} s from now (${now})`,
        );
      if (!connection.salts.add(Buffer.from(auth))) throw protocolError('replayed auth ID');
      readHeader = readAeadHeader;
      return readHeader();
    }
    const seconds = legacyAuth().lookup(auth);
    if (seconds === undefined)
      throw protocolError(
        `unknown user: neither an AEAD auth ID nor a legacy hash of this id within ${legacyHeader.TIME_WINDOW_SECONDS} s`,
      );
    readHeader = readLegacyHeader(seconds);
    return readHeader();
  };
  readHeader = readAuth;

  const serverDecode = (data, push) => {
    if (decodeBody) return decodeBody(data, push);
    held.add(data);
    if (!readHeader()) return;
    decodeBody(held.takeAll(), push);
  };

  const serverEncode = (data, push) => {
    if (!encodeResponse) return;
    if (responseHeader) {
      push(responseHeader);
      responseHeader = null;
    }
    encodeResponse(data, push);
  };

  // A target that ended: the response header if nothing went before, then
  // the end chunk.
  const encodeEnded = (push) => {
    if (!encodeResponse) return;
    serverEncode(Buffer.alloc(0), push);
    encodeResponse.end(push);
  };
  return { serverDecode, serverEncode, encodeEnded, decodeEnded: (ends) => decodeBody?.ended(ends) };
}

// The client reads the response header (the response byte it chose must
// come back), then the body; until then what arrived is held.
function responseReader(getSession, isAead) {
  const held = heldBytes();
  let decodeBody = null;
  let readHeader = null;
  const start = (session, plain) => {
    if (plain[0] !== session.responseByte)
      throw protocolError(`response header byte ${plain[0]}, expected ${session.responseByte}`);
    decodeBody = createBodyDecoder({ ...session.body, key: session.secrets.key, iv: session.secrets.iv });
  };
  const readAead = (session) => {
    const { sealedLength, open } = aeadHeader.openResponseLength(session.secrets);
    let length = -1;
    return () => {
      if (length < 0) {
        if (held.length < aeadHeader.LENGTH_RECORD) return false;
        length = sealedLength(held.take(aeadHeader.LENGTH_RECORD));
        if (length - 16 < RESPONSE_LENGTH || length - 16 > RESPONSE_LENGTH + 255)
          throw protocolError(`response header length ${length - 16} out of range`);
      }
      if (held.length < length) return false;
      start(session, open(held.take(length)));
      return true;
    };
  };
  // Legacy: 4 bytes under AES-128-CFB, then a command of the 4th byte's
  // length (V2Ray's servers send none to a client like ours).
  const readLegacy = (session) => () => {
    if (held.length < RESPONSE_LENGTH) return false;
    const plain = legacyHeader.responseDecipher(session.secrets).update(held.bytes.subarray(0, RESPONSE_LENGTH));
    if (held.length < RESPONSE_LENGTH + plain[3]) return false;
    held.take(RESPONSE_LENGTH + plain[3]);
    start(session, plain);
    return true;
  };
  const decode = (data, push) => {
    if (decodeBody) return decodeBody(data, push);
    held.add(data);
    readHeader ??= (isAead ? readAead : readLegacy)(getSession());
    if (!readHeader()) return;
    decodeBody(held.takeAll(), push);
  };
  decode.ended = (ends) => {
    if (!decodeBody) throw protocolError('VMess response ended before its header: truncated');
    decodeBody.ended(ends);
  };
  return decode;
}
