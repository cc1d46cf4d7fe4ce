import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

// A child of a process killed outright (SIGKILL, the OOM killer) would
// outlive it: nothing is left to stop it. On Linux, util-linux's `setpriv
// --pdeathsig KILL` asks the kernel to kill the child when its parent dies,
// then execs the program itself, so the child keeps the pid (and the socket
// table) that readiness and cost checks read. Apart from processes.js so
// that a relay started again with its flags (run-again.js) can use it without
// loading execa.

// An executable file at `file` or, for a bare name, on PATH.
function findExecutable(file) {
  const candidates = file.includes('/')
    ? [file]
    : (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((folder) => path.join(folder, file));
  return (
    candidates.find((candidate) => {
      try {
        accessSync(candidate, constants.X_OK);
        return statSync(candidate).isFile();
      } catch {
        return false;
      }
    }) ?? null
  );
}

let setpriv;
// [file, args] that start `file` so it dies with this process: under
// setpriv where there is one (Linux), else as it is. A program that is not
// there is started as it is, so it fails as before (ENOENT, "could not be
// started") rather than as setpriv's exit 127.
export function dyingWithParent(file, args) {
  setpriv ??= process.platform === 'linux' ? findExecutable('setpriv') : null;
  if (!setpriv || !findExecutable(file)) return [file, args];
  return [setpriv, ['--pdeathsig', 'KILL', '--', file, ...args]];
}
