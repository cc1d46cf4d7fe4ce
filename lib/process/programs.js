import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { inputError } from '../errors.js';

// A directory is "executable" to access(2) too; only a file runs.
async function isExecutable(file) {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

// Where a program a case needs lives, as a shell would find it: a name with
// a slash is a path (from `cwd`), any other name is looked up on PATH.
// Resolves with the absolute path, or null when there is none to run.
export async function findProgram(name, { env = process.env, cwd = process.cwd() } = {}) {
  if (name.includes('/')) {
    const file = path.resolve(cwd, name);
    return (await isExecutable(file)) ? file : null;
  }
  for (const folder of (env.PATH ?? '').split(path.delimiter)) {
    if (!folder) continue;
    const candidate = path.join(folder, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return null;
}

// { found: { name: path, ... } } when every program is there, else
// { missing: 'ss-server, ss-tunnel not found on PATH' }.
export async function findPrograms(names, options) {
  const paths = await Promise.all(names.map((name) => findProgram(name, options)));
  const missing = names.filter((_, at) => !paths[at]);
  if (missing.length > 0) {
    const where = missing.every((name) => !name.includes('/')) ? ' on PATH' : '';
    return { missing: `${missing.join(', ')} not found${where}` };
  }
  return { found: Object.fromEntries(names.map((name, at) => [name, paths[at]])) };
}

// The engine program a run insists on (iperf3, wrk): the path given, else
// the first `name` on PATH; missing, an input error that says how to
// install it (`hint`) or how to do without it (`otherwise`).
export async function requireProgram(name, { givenPath, env = process.env, hint, otherwise }) {
  if (givenPath) {
    const found = await findProgram(path.resolve(givenPath), { env });
    if (found) return found;
    throw inputError(`${name} not found at ${givenPath}: give the path of an installed ${name}, or ${hint}`);
  }
  const found = await findProgram(name, { env });
  if (found) return found;
  throw inputError(`${name} is not installed (not found on PATH): ${hint}, or ${otherwise}`);
}
