// @ts-check
import { generateKeyPairSync } from 'node:crypto';
import net from 'node:net';
import { CLI } from '../process/cli-path.js';
import { READY_LINE } from '../process/ready-line.js';

// What a REALITY or ShadowTLS row needs beside its two relays: a real TLS
// 1.3 site whose handshake the server borrows (`cipherbench tls-site`,
// started as a third process of the case on a port the kernel picks on
// loopback, so nothing leaves the machine), and for REALITY the server's
// X25519 key pair, as `xray x25519` prints it (unpadded base64url).

// A loopback port free now. The site is not one of the run's three fixed
// ports, and a process of the case binds it a moment later.
function freeLoopbackPort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/**
 * The site's relay plan, and the port its borrowers dial.
 * @param {{ cert: string, key: string }} certificate files of the run's certificate
 */
export async function borrowedSite(certificate) {
  const port = await freeLoopbackPort();
  return {
    port,
    relay: {
      role: 'site',
      label: 'tls site',
      file: process.execPath,
      args: [CLI, 'tls-site', '--listen', `127.0.0.1:${port}`, '--cert', certificate.cert, '--key', certificate.key],
      readiness: { stdout: READY_LINE },
    },
  };
}

export function realityKeyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  return { privateKey: privateKey.export({ format: 'jwk' }).d, publicKey: publicKey.export({ format: 'jwk' }).x };
}
