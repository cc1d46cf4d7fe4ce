// @ts-check
import { existsSync } from 'node:fs';
import { inputError } from '../errors.js';
import { DEFAULT_THRESHOLD } from './comparison.js';
import { EXPORTERS } from './exporters.js';

// What a run writes and compares once it is measured, in one table as the
// run's own options are (lib/runner/run-options.js): the CLI builds its flags
// from it and report() reads the same names. An entry has a name, its
// flags ({ flags, description, default }), the value when none is given,
// and a check when not every value will do.
/**
 * @typedef {object} ReportOption
 * @property {string} name
 * @property {unknown} fallback
 * @property {(value: any) => unknown} [check]
 * @property {{ flags: string, description: string, default?: string }[]} cli
 */

/** @type {readonly ReportOption[]} */
export const REPORT_OPTIONS = Object.freeze([
  {
    name: 'baseline',
    fallback: null,
    cli: [
      {
        flags: '--baseline <file>',
        description: 'compare with an earlier result (reports/*.json) after the ranking; exit 1 when a case got slower',
      },
    ],
  },
  {
    name: 'threshold',
    fallback: DEFAULT_THRESHOLD,
    check: parseThreshold,
    cli: [
      {
        flags: '--threshold <percent>',
        description: 'with --baseline: smallest drop of a median, in percent, that counts as slower',
        default: String(DEFAULT_THRESHOLD),
      },
    ],
  },
  {
    name: 'strict',
    fallback: false,
    cli: [
      {
        flags: '--strict',
        description:
          'with --baseline: also gate cases with fewer than 3 runs a side, on the threshold and disjoint min..max ranges alone',
      },
    ],
  },
  // The formats the run writes beside its archive, from the exporters' table.
  ...EXPORTERS.filter((exporter) => exporter.onRun).map(({ name, flag, onRun }) => ({
    name,
    fallback: null,
    cli: [{ flags: flag, description: onRun }],
  })),
  {
    name: 'out',
    fallback: './reports',
    cli: [{ flags: '--out <dir>', description: 'folder the report is archived in', default: './reports' }],
  },
  {
    name: 'archive',
    fallback: true,
    cli: [{ flags: '--no-archive', description: 'do not write the report to --out' }],
  },
  {
    name: 'json',
    fallback: null,
    check: checkJsonFile,
    cli: [
      {
        flags: '--json [file]',
        description:
          "also write the JSON report to FILE; with no FILE or '-', print it on stdout and the text on stderr",
      },
    ],
  },
  {
    name: 'color',
    fallback: true,
    cli: [
      {
        flags: '--no-color',
        description: 'never colour the text (as NO_COLOR does); colour is only used on a terminal',
      },
    ],
  },
]);

export function readReportOptions(options = {}) {
  return Object.fromEntries(
    REPORT_OPTIONS.map(({ name, fallback, check = (value) => value }) => [name, check(options[name] ?? fallback)]),
  );
}

// Shared with compare, which gates the same way.
export function parseThreshold(value) {
  const threshold = Number(value);
  if (String(value).trim() === '' || !Number.isFinite(threshold) || threshold < 0) {
    throw inputError(`--threshold must be a percentage of 0 or more, such as 5; got '${value}'`);
  }
  return threshold;
}

// `--json cases.js` would take the cases file for the output and overwrite
// it: commander cannot know that FILE was meant as the cases file. A .js
// name, or any existing file but a .json one, is refused.
function checkJsonFile(json) {
  if (typeof json !== 'string' || json === '-') return json;
  if (/\.(c|m)?js$/.test(json) || (existsSync(json) && !json.endsWith('.json'))) {
    throw inputError(
      `--json ${json}: that looks like a cases file, not where to write the JSON report; give a .json name, '-' for stdout, or put the cases file before --json`,
    );
  }
  return json;
}
