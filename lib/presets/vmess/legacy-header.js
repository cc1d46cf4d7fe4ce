import { createCipheriv, createDecipheriv, createHash, createHmac } from 'node:crypto';

// The legacy request header, V2Ray's only one before 4.28 and still what its
// clients send when alterId > 0 (proxy/vmess/encoding/client.go):
//   HMAC-MD5(user ID, time as 8 big-endian bytes) (16) | AES-128-CFB header
// under the command key with IV MD5(time x 4). The ID is the user's UUID or
// one of its alter IDs; the time is the sender's clock +- 30 s.
export const AUTH_LENGTH = 16;
export const CLIENT_TIME_JITTER_SECONDS = 30;
// V2Ray's server knows the hashes of every second within 120 s of its clock.
export const TIME_WINDOW_SECONDS = 120;

const timeBytes = (seconds) => {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(seconds));
  return bytes;
};

export const authHash = (id, seconds) => createHmac('md5', id).update(timeBytes(seconds)).digest();

const headerIv = (seconds) => {
  const time = timeBytes(seconds);
  return createHash('md5').update(time).update(time).update(time).update(time).digest();
};

export const headerCipher = (cmdKey, seconds) => createCipheriv('aes-128-cfb', cmdKey, headerIv(seconds));
export const headerDecipher = (cmdKey, seconds) => createDecipheriv('aes-128-cfb', cmdKey, headerIv(seconds));

// Which second a received hash stands for, for every ID a server accepts:
// the table holds each second within the window and moves with the clock,
// so a lookup is one Map access. One table serves every connection.
export function createAuthTable(ids, now = () => Math.floor(Date.now() / 1000)) {
  const seconds = new Map();
  const bySecond = new Map();
  let first = Infinity;
  let last = -Infinity;
  const advance = (current) => {
    const from = Math.max(last + 1, current - TIME_WINDOW_SECONDS);
    for (let second = from; second <= current + TIME_WINDOW_SECONDS; second++) {
      const hashes = ids.map((id) => authHash(id, second).toString('latin1'));
      hashes.forEach((hash) => seconds.set(hash, second));
      bySecond.set(second, hashes);
    }
    last = current + TIME_WINDOW_SECONDS;
    for (first = Math.min(first, from); first < current - TIME_WINDOW_SECONDS; first++) {
      bySecond.get(first)?.forEach((hash) => seconds.delete(hash));
      bySecond.delete(first);
    }
  };
  return {
    // The second the hash was made for, or undefined.
    lookup(hash) {
      const current = now();
      if (current + TIME_WINDOW_SECONDS > last) advance(current);
      const second = seconds.get(hash.toString('latin1'));
      return second !== undefined && Math.abs(second - current) <= TIME_WINDOW_SECONDS ? second : undefined;
    },
  };
}

// The legacy request's response keys: MD5 of the request's.
export const responseSecrets = (bodyKey, bodyIv) => ({
  key: createHash('md5').update(bodyKey).digest(),
  iv: createHash('md5').update(bodyIv).digest(),
});

// The response header goes under AES-128-CFB with the response key and IV.
export const responseCipher = ({ key, iv }) => createCipheriv('aes-128-cfb', key, iv);
export const responseDecipher = ({ key, iv }) => createDecipheriv('aes-128-cfb', key, iv);
