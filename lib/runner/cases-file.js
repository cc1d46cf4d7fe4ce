// @ts-check
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { validateChain } from '../chain/validate.js';
import { inputError, jsonProblem } from '../errors.js';
import { CASE_INBOUNDS, caseIdentity, isReference, validateInbound, validateReference } from '../peers/index.js';
import { runCommand } from '../process/processes.js';
import { CATALOGUE } from '../presets/index.js';

export const BUNDLED_CASES_FILE = fileURLToPath(new URL('../../cases.js', import.meta.url));

// The file named, else ./cases.js where the person stands, else the set that
// ships with the package, so `npx cipherbench` works in an empty folder.
export function resolveCasesFile(file, { cwd = process.cwd() } = {}) {
  if (file) return path.resolve(cwd, file);
  const local = path.resolve(cwd, 'cases.js');
  return existsSync(local) ? local : BUNDLED_CASES_FILE;
}

// Where a run's cases came from, as its report names them: 'bundled' for
// the set that ships, as it ships; 'file' for any other file, and for the
// shipped file once edited in a clone (git says so), since 'bundled' would
// then name cases nobody shipped; null for cases given in code. An
// installed package has no .git: its cases.js is as published.
export async function casesSource(file, { bundled = BUNDLED_CASES_FILE } = {}) {
  if (!file) return null;
  if (file !== bundled) return 'file';
  const root = path.dirname(bundled);
  if (!existsSync(path.join(root, '.git'))) return 'bundled';
  try {
    const changed = await runCommand('git', ['-C', root, 'status', '--porcelain', '--', path.basename(bundled)]);
    return changed.trim() === '' ? 'bundled' : 'file';
  } catch {
    // No git to ask: the path alone is true either way.
    return 'file';
  }
}

// Loads a cases file written as an ES module (export default [...]) or as
// CommonJS (module.exports = [...]) and returns what it exports, unchecked.
export async function loadCasesFile(file) {
  if (!existsSync(file)) throw inputError(`cases file ${file} not found`);
  if (file.endsWith('.json')) return loadJson(file);
  let namespace;
  try {
    namespace = await import(pathToFileURL(file).href);
  } catch (error) {
    // A CommonJS cases file under a "type": "module" package.json (this
    // package's own, for one) is read as an ES module and stops at its first
    // use of module/exports/require; run it as the CommonJS it is.
    if (
      error instanceof ReferenceError &&
      /^(module|exports|require) is not defined in ES module scope/.test(error.message)
    ) {
      return loadAsCommonJs(file);
    }
    throw await loadError(file, error);
  }
  if ('default' in namespace) return namespace.default;
  throw inputError(`cases file ${file} exports no array: end it with export default [...] or module.exports = [...]`);
}

// A .json cases file is the array itself; import() would want an import
// attribute only code can give. A parse error names its line.
async function loadJson(file) {
  const text = await readFile(file, 'utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    const { line, message } = jsonProblem(text, error);
    return Promise.reject(inputError(`cases file ${line ? `${file}:${line}` : file}: not valid JSON: ${message}`));
  }
}

async function loadAsCommonJs(file) {
  const source = await readFile(file, 'utf8');
  const module = { exports: {} };
  try {
    const body = vm.compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname'], {
      filename: file,
    });
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
  const frame = (error.stack ?? '')
    .split('\n')
    .find((line) => line.includes(url) || line.includes(`(${file}:`) || line.includes(` ${file}:`));
  const position = frame && /:(\d+):(\d+)\)?\s*$/.exec(frame);
  const where = position ? `${file}:${position[1]}` : file;
  return inputError(`cases file ${where} threw while loading: ${error.name}: ${error.message.split('\n')[0]}`);
}

// node --check reads a .js file outside any "type": "module" package as
// CommonJS first and may pass an ES module it cannot place; checking the
// source again as a module (on stdin) finds the line then.
async function syntaxErrorLine(file) {
  const stderrOf = (args, options) =>
    runCommand(process.execPath, args, options).then(
      () => '',
      (error) => error.stderr,
    );
  const first = (await stderrOf(['--check', file])).split('\n')[0];
  if (first.startsWith(`${file}:`)) return first;
  const line = /^\[stdin\]:(\d+)/.exec(
    await stderrOf(['--input-type=module', '--check'], { input: await readFile(file) }),
  );
  return line ? `${file}:${line[1]}` : null;
}

// Every problem in the exported value as { index, field, message }: index is
// the case's position (null when the whole export is wrong). A case is a
// preset chain (an array) or a reference row (an object with impl).
export function validateCases(cases) {
  if (!Array.isArray(cases)) {
    const got = cases === null ? 'null' : typeof cases;
    return [{ index: null, field: 'cases', message: `must be an array of preset chains, got ${got}` }];
  }
  if (cases.length === 0) return [{ index: null, field: 'cases', message: 'is empty: list at least one preset chain' }];
  return cases.flatMap((given, index) => {
    // [a] [b] with the comma forgotten is a property access, [a][b], which
    // gives undefined and swallows chain b without a word.
    if (given === undefined) {
      return [
        {
          index,
          field: 'case',
          message: `case ${index} is undefined: a comma missing between two chains? ([...] [...] reads as one chain indexed by the next)`,
        },
      ];
    }
    if (isReference(given) && given.impl !== undefined)
      return validateReference(given).map((problem) => ({ index, ...problem }));
    if (isReference(given) && given.chain !== undefined)
      return validateChainCase(given).map((problem) => ({ index, ...problem }));
    // An object without impl or chain is most likely one preset missing its [ ].
    if (!Array.isArray(given)) {
      return [
        {
          index,
          field: 'presets',
          message:
            'must be an array of presets, e.g. [{"name":"ss-base"},{"name":"ss-aead-cipher","params":{"method":"aes-256-gcm"}}], or a reference row such as {"impl":"direct"}',
        },
      ];
    }
    return validateChain(CATALOGUE, given).map((problem) => ({ index, ...problem }));
  });
}

// A chain given with the inbound its clients use: { chain: [...], inbound }.
function validateChainCase(given) {
  const unknown = Object.keys(given)
    .filter((field) => field !== 'chain' && field !== 'inbound')
    .map((field) => ({
      field,
      message: `a chain case takes no field ${JSON.stringify(field)}; valid: chain, inbound`,
    }));
  if (!Array.isArray(given.chain)) return [...unknown, { field: 'chain', message: 'must be an array of presets' }];
  const chain = validateChain(CATALOGUE, given.chain).map((problem) => ({
    ...problem,
    field: problem.field.replace(/^presets/, 'chain'),
  }));
  return [...unknown, ...validateInbound(given.inbound, CASE_INBOUNDS, 'a chain'), ...chain];
}

export function formatCaseProblems(file, problems) {
  const lines = problems.map(({ index, field, message }) => {
    if (index === null) return `${field} ${message}`;
    return field === 'case' ? message : `case ${index}: ${field}: ${message}`;
  });
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  return `cases file ${file} has ${count}:\n${lines.map((line) => `  ${line}`).join('\n')}`;
}

// One warning per case that repeats an earlier one exactly: both would run,
// and the second is seldom meant (--repeat measures a case again).
export function duplicateWarnings(selected) {
  const first = new Map();
  const warnings = [];
  for (const { index, ...identity } of selected) {
    const key = JSON.stringify(identity);
    if (first.has(key)) {
      warnings.push(
        `cases ${first.get(key)} and ${index} are the same ${identity.impl ? 'row' : 'chain'}, so it runs twice; remove one, or use --repeat to measure a case more than once`,
      );
    } else {
      first.set(key, index);
    }
  }
  return warnings;
}

// Whether `text` names a case: its number as the reports print it ('2' or
// 'Case 2', counted from 0 as the cases file lists them; 'Test Case 2', as
// reports before version 7's printed it, too); other text is
// part of its JSON as cases.js gives it, or of a reference row's label.
function matches(given, identity, text) {
  const number = caseNumber(text);
  if (number !== null) return identity.index === number;
  return JSON.stringify(given).includes(text) || Boolean(identity.label?.includes(text));
}

function caseNumber(text) {
  const number = /^\s*(?:(?:test\s+)?case\s+)?(\d+)\s*$/i.exec(text)?.[1];
  return number === undefined ? null : Number(number);
}

// The cases a --filter keeps, each with its index in the file and what it
// runs (peers/index.js caseIdentity): { index, presets } for a chain,
// { index, impl, ..., label } for a reference row.
export function selectCases(cases, filter) {
  const all = cases.map((given, index) => ({ index, ...caseIdentity(given) }));
  if (filter === null) return all;
  const number = caseNumber(filter);
  if (number !== null && number >= cases.length) {
    throw inputError(
      `--filter ${filter}: there is no case ${number}; the cases file has ${cases.length} (0 to ${cases.length - 1})`,
    );
  }
  const kept = all.filter((identity) => matches(cases[identity.index], identity, filter));
  if (kept.length === 0)
    throw inputError(
      `--filter ${JSON.stringify(filter)} matches no case: give a case index or text from a case's JSON or label`,
    );
  return kept;
}

// The index of the one selected case --relative-to names, matched as
// --filter matches; none or several is bad input that lists what matched.
// Among several, a row whose whole label is the text is the one meant:
// 'xray shadowsocks aes-256-gcm' is a row's label and the start of its
// ' + ws' and ' + grpc' rows' labels.
export function selectAnchorCase(cases, selected, text) {
  const found = selected.filter((identity) => matches(cases[identity.index], identity, text));
  if (found.length === 1) return found[0].index;
  const named = found.filter((identity) => identity.label?.trim().toLowerCase() === text.trim().toLowerCase());
  if (named.length === 1) return named[0].index;
  if (found.length === 0) {
    throw inputError(
      `--relative-to ${JSON.stringify(text)} matches no case in this run: give the index, or text from the JSON or label, of one case the run measures`,
    );
  }
  const names = found.map((identity) => `${identity.index} (${identity.label ?? JSON.stringify(identity.presets)})`);
  throw inputError(
    `--relative-to ${JSON.stringify(text)} matches ${found.length} cases and must match one: ${names.join(', ')}`,
  );
}
