// A node:test reporter that writes one JSON line per failing test: its file
// and line, its name under its suites' names, and the first lines of its
// error. scripts/test.js gives it a file of its own beside the TAP on
// stdout and prints what it wrote at the very end of `npm test`, where a
// CI log that keeps only its tail still shows it.
//
// It writes that file itself, synchronously, and yields nothing to its
// reporter destination: a node --test that exits before a destination
// stream has flushed (as it did under --test-force-exit) would lose the
// last lines (1 run in 3 of test/npm-test.test.js then).
import { appendFileSync } from 'node:fs';

const ERROR_LINES = 8;
const FILE = process.env.CIPHERBENCH_FAILURES_FILE;

// A suite fails as 'subtestsFailed' after its failing children, which
// arrive first at one level deeper: those children are held, per file,
// until their suite names them or a test of the same level passes by.
export default async function* failureReporter(source) {
  for await (const failure of failures(source)) {
    if (FILE) appendFileSync(FILE, `${JSON.stringify(failure)}\n`);
  }
}

async function* failures(source) {
  const held = new Map();
  for await (const { type, data } of source) {
    if (type !== 'test:fail' && type !== 'test:pass') continue;
    const file = data.file ?? '';
    const waiting = held.get(file) ?? [];
    const children = waiting.filter((failure) => failure.nesting > data.nesting);
    const rest = waiting.filter((failure) => failure.nesting <= data.nesting);
    const failureType = data.details?.error?.failureType;
    if (type === 'test:fail' && failureType === 'subtestsFailed') {
      // The suite's own failure says only that its children failed.
      for (const child of children) child.name = `${data.name} > ${child.name}`;
      held.set(file, [...rest, ...children.map((child) => ({ ...child, nesting: data.nesting }))]);
    } else {
      if (type === 'test:fail') rest.push(failureOf(data, failureType));
      held.set(file, rest);
      for (const child of children) yield child;
    }
    if (data.nesting === 0) {
      for (const failure of held.get(file)) yield failure;
      held.set(file, []);
    }
  }
  for (const failures of held.values()) {
    for (const failure of failures) yield failure;
  }
}

function failureOf(data, failureType) {
  const error = data.details?.error;
  // node:test wraps what the test threw; the cause is the test's own error.
  const cause = error?.cause ?? error;
  let message =
    cause instanceof Error ? `${cause.code ? `${cause.code}: ` : ''}${cause.message}` : String(cause ?? 'failed');
  // A file's process that failed outside its tests is reported under the
  // file's own path; what it printed is in the TAP above.
  const wholeFile = data.name === data.file;
  if (wholeFile) {
    message = `its process ${error?.signal ? `was killed by ${error.signal}` : `exited with code ${error?.exitCode ?? '?'}`}: its output is above`;
  }
  return {
    file: data.file ?? null,
    line: wholeFile ? null : (data.line ?? null),
    name: wholeFile ? '(the file itself, outside its tests)' : data.name,
    nesting: data.nesting,
    failureType: failureType ?? null,
    error: message.trimEnd().split('\n').slice(0, ERROR_LINES).join('\n'),
  };
}
