// @ts-check
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { selfSignedCertificate } from '../crypto/self-signed-certificate.js';

// A fresh self-signed certificate for localhost and 127.0.0.1 (or `hosts`)
// in a run's folder, as the TLS servers of a run read it: { cert, key } file
// paths. The client trusts `cert` itself (a self-signed certificate is its
// own CA).
export function writeCertificateFiles(folder, { hosts = ['localhost', '127.0.0.1'] } = {}) {
  const { cert, key } = selfSignedCertificate({ hosts: [...new Set(hosts)] });
  const files = { cert: path.join(folder, 'cert.pem'), key: path.join(folder, 'key.pem') };
  writeFileSync(files.cert, cert);
  writeFileSync(files.key, key, { mode: 0o600 });
  return files;
}
