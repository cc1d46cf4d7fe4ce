// @ts-check
import { readFile } from 'node:fs/promises';
import { inputError, jsonProblem } from '../errors.js';
import { isResult, upgradeResult } from '../result.js';

// A result file someone named (report, compare, run --baseline), in the
// current shape whatever version archived it. A missing file, bad JSON or
// some other JSON is a mistake a person made, so it is one line saying
// which file and what to pass instead.
export async function readResultFile(path) {
  let text;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw inputError(`cannot read ${path}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
  }
  let result;
  try {
    result = JSON.parse(text);
  } catch (error) {
    const { line, message } = jsonProblem(text, error);
    throw inputError(
      `${path}${line ? `:${line}` : ''} is not JSON (${message}); pass a report such as reports/YYYY-MM-DD-HHMMSSZ.json`,
    );
  }
  if (!isResult(result)) {
    throw inputError(
      `${path} is not a cipherbench result (no cases[] of preset chains or reference rows); pass a report such as reports/YYYY-MM-DD-HHMMSSZ.json`,
    );
  }
  try {
    return upgradeResult(result);
  } catch (error) {
    // A newer result version: which file, for a person reading many.
    if (error.exitCode === undefined) throw error;
    throw inputError(`${path}: ${error.message}`);
  }
}
