import { readFile } from 'node:fs/promises';

// The result fixture, and a case's runs set to chosen bitrates: the
// comparison's tests (test/unit/report-compare.test.js) and the compare command's
// (test/cli-compare.test.js) build their old and new runs from these.
export const FIXTURE = new URL('../fixtures/result-v2.json', import.meta.url);
export const fixture = JSON.parse(await readFile(FIXTURE, 'utf8'));
export const copy = () => structuredClone(fixture);

// A case's ok runs with these receiver bitrates, and its summary made from
// them as the runner makes it: the test ranks the runs, the table shows the
// summary.
export function setRuns(caseResult, values) {
  const template = caseResult.runs.find((run) => run.status === 'ok') ?? fixture.cases[0].runs[0];
  caseResult.status = 'ok';
  caseResult.reason = null;
  caseResult.sender = caseResult.sender ?? template.sender;
  caseResult.runs = values.map((bitsPerSecond, repeat) => ({
    ...structuredClone(template),
    repeat,
    receiver: { ...template.receiver, bits_per_second: bitsPerSecond },
  }));
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  caseResult.receiver = { ...template.receiver, bits_per_second: median, min: sorted[0], max: sorted.at(-1) };
}
