import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import net from 'node:net';

// A self-signed X.509 v3 certificate for a TLS server that was given none,
// and for each benchmark run's relays: an ECDSA P-256 key, the host as
// subject and as subjectAltName (a name, or an IP address), signed with
// SHA-256. It is DER written by hand because the shape is fixed and small:
// the openssl command would make a relay start a process, and the packages
// that write certificates are asynchronous (WebCrypto) and load a dozen
// modules into every relay.
const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
};
const HOUR_MS = 3_600_000;

const length = (n) => {
  if (n < 0x80) return Buffer.from([n]);
  const bytes = [];
  for (let rest = n; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
};
const der = (tag, ...contents) => {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
};
const sequence = (...items) => der(0x30, ...items);

function oid(text) {
  const [first, second, ...rest] = text.split('.').map(Number);
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const groups = [];
    for (let value = arc; ; value = Math.floor(value / 128)) {
      groups.unshift(value % 128);
      if (value < 128) break;
    }
    bytes.push(...groups.map((group, i) => (i < groups.length - 1 ? group | 0x80 : group)));
  }
  return der(0x06, Buffer.from(bytes));
}

// UTCTime, good until 2049: YYMMDDHHMMSSZ.
const utcTime = (date) => der(0x17, Buffer.from(`${date.toISOString().replace(/[-:T]/g, '').slice(2, 14)}Z`, 'ascii'));

const name = (commonName) =>
  sequence(der(0x31, sequence(oid(OID.commonName), der(0x0c, Buffer.from(commonName, 'utf8')))));

function altName(host) {
  if (net.isIPv4(host)) return der(0x87, Buffer.from(host.split('.').map(Number)));
  return der(0x82, Buffer.from(host, 'ascii'));
}

const toPem = (label, bytes) =>
  `-----BEGIN ${label}-----\n${bytes
    .toString('base64')
    .match(/.{1,64}/g)
    .join('\n')}\n-----END ${label}-----\n`;

// Returns { cert, key } as PEM text. `hosts` are the names and IPv4
// addresses it is valid for; the first is also its subject.
export function selfSignedCertificate({ hosts = ['localhost', '127.0.0.1'], days = 30, now = new Date() } = {}) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  // A DER INTEGER is positive with its top bit clear, and may not start
  // with a zero byte the next does not need: with the first byte free to be
  // 0, one certificate in 256 was refused as "illegal padding".
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x40;
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const subject = name(hosts[0]);
  const extensions = der(
    0xa3,
    sequence(
      sequence(oid(OID.basicConstraints), der(0x04, sequence())),
      sequence(oid(OID.subjectAltName), der(0x04, sequence(...hosts.map(altName)))),
    ),
  );
  const tbs = sequence(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, serial),
    algorithm,
    subject,
    sequence(utcTime(new Date(now.getTime() - HOUR_MS)), utcTime(new Date(now.getTime() + days * 24 * HOUR_MS))),
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
    extensions,
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = sequence(tbs, algorithm, der(0x03, Buffer.from([0]), signature));
  return { cert: toPem('CERTIFICATE', certificate), key: privateKey.export({ type: 'pkcs8', format: 'pem' }) };
}
