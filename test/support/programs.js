import { execFileSync } from 'node:child_process';

// A test that needs a program this machine lacks fails in CI (CI=true), where
// .ci/run installs everything, and may only skip, saying why, elsewhere.
export function requirePrograms(t, ...names) {
  const missing = names.filter((name) => !which(name));
  if (missing.length === 0) return true;
  const rust = missing.some((name) => name === 'ssserver' || name === 'sslocal');
  const go = missing.some((name) => name === 'xray' || name === 'sing-box');
  const install = rust
    ? 'cargo install shadowsocks-rust --locked --root /var/cache/cipherbench/shadowsocks-rust, then that bin on PATH, as .ci/run does'
    : go
      ? '.ci/run builds xray and sing-box with go install into /var/cache/cipherbench/go/bin: put that on PATH'
      : 'Debian: apt-get install -y iperf3 shadowsocks-libev';
  const message = `needs ${missing.join(', ')} on PATH (${install})`;
  if (process.env.CI === 'true') throw new Error(message);
  t.skip(message);
  return false;
}

export function which(name) {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}
