// Loaded with --import by the unit tier (scripts/test.js, test/unit/): in
// each test file's process, starting a child process or opening a socket
// throws, so a test that needs either fails where it stands instead of
// quietly making the fast tier slow or dependent on this machine's
// programs. The test runner's own process (no NODE_TEST_CONTEXT) starts the
// files' processes and is left alone.
import childProcess from 'node:child_process';
import dgram from 'node:dgram';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

export const PURE_RULE = 'a test of test/unit/ starts no process and opens no socket';

function refuse(what) {
  return function refused() {
    throw new Error(`${what}: ${PURE_RULE}; move this test out of test/unit/`);
  };
}

if (process.env.NODE_TEST_CONTEXT) {
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
    childProcess[name] = refuse(`child_process.${name}`);
  }
  childProcess.ChildProcess.prototype.spawn = refuse('ChildProcess.spawn');
  net.Server.prototype.listen = refuse('net.Server.listen');
  net.Socket.prototype.connect = refuse('net.Socket.connect');
  dgram.Socket.prototype.bind = refuse('dgram.Socket.bind');
  dgram.Socket.prototype.send = refuse('dgram.Socket.send');
  // import { spawn } from 'node:child_process' reads these bindings.
  syncBuiltinESMExports();
}
