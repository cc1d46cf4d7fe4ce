// @ts-check
import { randomBytes } from 'node:crypto';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inputError } from '../errors.js';
import { EXPORTERS } from './exporters.js';

// Every file a run will write once it is measured, checked before it
// measures: a run of many minutes that ends in "cannot write" has lost
// every figure. Throws one input error naming each path that cannot be
// written (a folder that is missing or is a file, a file that is a folder,
// a folder this user cannot write in). A disk that fills up or a folder
// removed during the run can still fail the write at the end: finish()
// then keeps the result in a temporary file (keepResult).
export function checkOutputPaths(settings) {
  const problems = [];
  for (const { name } of EXPORTERS) {
    const target = settings[name];
    if (typeof target !== 'string' || target === '-') continue;
    const problem = fileProblem(target);
    if (problem) problems.push(`--${name} ${target}: ${problem}`);
  }
  if (settings.archive) {
    const problem = folderProblem(settings.out);
    if (problem) problems.push(`--out ${settings.out}: ${problem} (or --no-archive)`);
  }
  if (problems.length > 0) throw inputError(`${problems.join('; ')}`);
}

function fileProblem(file) {
  const kind = kindOf(file);
  if (kind === 'folder') return 'is a folder';
  const folder = path.dirname(file);
  const folderKind = kindOf(folder);
  if (folderKind === null) return `the folder ${folder} does not exist`;
  if (folderKind !== 'folder') return `${folder} is not a folder`;
  return probe(folder);
}

// The archive folder is made when the run ends, with its parents: the
// nearest part of it that exists must be a folder this user can write in.
function folderProblem(folder) {
  let existing = path.resolve(folder);
  while (kindOf(existing) === null && path.dirname(existing) !== existing) existing = path.dirname(existing);
  if (kindOf(existing) !== 'folder') return `${existing} is not a folder`;
  return probe(existing);
}

function kindOf(file) {
  try {
    return statSync(file).isDirectory() ? 'folder' : 'file';
  } catch {
    return null;
  }
}

// Whether a file can be created in `folder`: trying is the only test that
// also knows read-only mounts, ACLs and quotas.
function probe(folder) {
  const file = path.join(folder, `.cipherbench-check-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    writeFileSync(file, '', { flag: 'wx' });
    rmSync(file, { force: true });
    return null;
  } catch (error) {
    return `cannot write in ${folder} (${error.code ?? error.message})`;
  }
}

// The last resort of a result no file holds: the system's temporary
// folder, under a name of its own. Resolves with the path, or null.
export function keepResult(text, startedAt) {
  const file = path.join(os.tmpdir(), `cipherbench-${String(startedAt).replace(/[:.]/g, '-')}-${process.pid}.json`);
  try {
    writeFileSync(file, text, { flag: 'wx' });
    return file;
  } catch {
    return null;
  }
}
