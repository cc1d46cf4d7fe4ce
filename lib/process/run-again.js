import { spawn } from 'node:child_process';
import { dyingWithParent } from './death-signal.js';

// Runs this very command line again in a node started with `nodeFlags`
// added, and ends as it ends: the same stdio, each of `signals` passed on,
// its exit code (or its death by a signal) made this process's own. The
// child dies with this process where the system allows (death-signal.js),
// so a wrapper killed outright leaves nothing behind. Without execa: the
// relays start through this, and execa would sit on a relay's heap.
export function runAgainWith(nodeFlags, { signals, env = process.env }) {
  const [file, args] = dyingWithParent(process.execPath, [...nodeFlags, ...process.execArgv, ...process.argv.slice(1)]);
  const child = spawn(file, args, { stdio: 'inherit', env });
  const pass = (signal) => child.kill(signal);
  for (const signal of signals) process.on(signal, pass);
  child.on('error', (error) => {
    process.stderr.write(`cipherbench: cannot start node with ${nodeFlags.join(' ')}: ${error.message}\n`);
    process.exitCode = 1;
  });
  child.on('exit', (code, signal) => {
    for (const name of signals) process.off(name, pass);
    if (signal) process.kill(process.pid, signal);
    else process.exitCode = code;
  });
}
