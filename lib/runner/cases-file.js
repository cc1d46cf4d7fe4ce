import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import vm from 'node:vm';
import { validateChain } from '../presets/index.js';
import { inputError } from './input-error.js';

export const BUNDLED_CASES_FILE = fileURLToPath(new URL('../../cases.js', import.meta.url));

// The file named, else ./cases.js where the person stands, else the set that
// ships with the package, so `npx cipherbench` works in an empty folder.
export function resolveCasesFile(file, { cwd = process.cwd() } = {}) {
  if (file) return path.resolve(cwd, file);
  const local = path.resolve(cwd, 'cases.js');
  return existsSync(local) ? local : BUNDLED_CASES_FILE;
}

// Loads a cases file written as an ES module (export default [...]) or as
// CommonJS (module.exports = [...]) and returns what it exports, unchecked.
export async function loadCasesFile(file) {
  if (!existsSync(file)) throw inputError(`cases file ${file} not found`);
  let namespace;
  try {
    namespace = await import(pathToFileURL(file).href);
  } catch (error) {
    // A CommonJS cases file under a "type": "module" package.json (this
    // package's own, for one) is read as an ES module and stops at its first
    // use of module/exports/require; run it as the CommonJS it is.
    if (error instanceof ReferenceError && /^(module|exports|require) is not defined in ES module scope/.test(error.message)) {
      return loadAsCommonJs(file);
    }
    throw await loadError(file, error);
  }
  if ('default' in namespace) return namespace.default;
  throw inputError(`cases file ${file} exports no array: end it with export default [...] or module.exports = [...]`);
}

async function loadAsCommonJs(file) {
  const source = await readFile(file, 'utf8');
  const module = { exports: {} };
  try {
    const body = vm.compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: file });
    body(module.exports, createRequire(file), module, file, path.dirname(file));
  } catch (error) {
    throw await loadError(file, error);
  }
  return module.exports;
}

// One line naming the file, the line when known, and what went wrong.
async function loadError(file, error) {
  if (!(error instanceof Error)) return inputError(`cases file ${file} threw ${JSON.stringify(error)} while loading`);
  if (error instanceof SyntaxError) {
    // Node gives no position for a syntax error in an ES module it imports;
    // node --check does, on the line before the source excerpt.
    const where = (await syntaxErrorLine(file)) ?? file;
    return inputError(`cases file ${where}: ${error.name}: ${error.message}`);
  }
  const url = pathToFileURL(file).href;
  const frame = (error.stack ?? '').split('\n').find((line) => line.includes(url) || line.includes(`(${file}:`) || line.includes(` ${file}:`));
  const position = frame && /:(\d+):(\d+)\)?\s*$/.exec(frame);
  const where = position ? `${file}:${position[1]}` : file;
  return inputError(`cases file ${where} threw while loading: ${error.name}: ${error.message.split('\n')[0]}`);
}

async function syntaxErrorLine(file) {
  try {
    await promisify(execFile)(process.execPath, ['--check', file], { timeout: 10_000 });
    return null;
  } catch (error) {
    const first = String(error.stderr ?? '').split('\n')[0];
    return first.startsWith(`${file}:`) ? first : null;
  }
}

// Every problem in the exported value as { index, field, message }: index is
// the case's position (null when the whole export is wrong).
export function validateCases(cases) {
  if (!Array.isArray(cases)) {
    const got = cases === null ? 'null' : typeof cases;
    return [{ index: null, field: 'cases', message: `must be an array of preset chains, got ${got}` }];
  }
  if (cases.length === 0) return [{ index: null, field: 'cases', message: 'is empty: list at least one preset chain' }];
  return cases.flatMap((chain, index) => {
    if (!Array.isArray(chain)) {
      return [{ index, field: 'presets', message: 'must be an array of presets, e.g. [{"name":"ss-base"},{"name":"ss-aead-cipher","params":{"method":"aes-256-gcm"}}]' }];
    }
    return validateChain(chain).map((problem) => ({ index, ...problem }));
  });
}

export function formatCaseProblems(file, problems) {
  const lines = problems.map(({ index, field, message }) => (index === null ? `${field} ${message}` : `case ${index}: ${field}: ${message}`));
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  return `cases file ${file} has ${count}:\n${lines.map((line) => `  ${line}`).join('\n')}`;
}

// The cases a --filter keeps, each with its index in the file: a whole number
// picks that index; any other text keeps the chains whose JSON contains it.
export function selectCases(cases, filter) {
  const all = cases.map((presets, index) => ({ index, presets }));
  if (filter === null) return all;
  if (/^\d+$/.test(filter)) {
    const index = Number(filter);
    if (index >= cases.length) throw inputError(`--filter ${filter}: there is no case ${index}; the cases file has ${cases.length} (0 to ${cases.length - 1})`);
    return [all[index]];
  }
  const kept = all.filter(({ presets }) => JSON.stringify(presets).includes(filter));
  if (kept.length === 0) throw inputError(`--filter ${JSON.stringify(filter)} matches no case: give a case index or text from a case's JSON`);
  return kept;
}
