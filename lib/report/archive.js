// @ts-check
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { replaceFile } from './export-file.js';
import { exporterNamed } from './exporters.js';
import { formatJsonReport } from './json-report.js';
import { formatTextReport } from './text-report.js';

const [TEXT_EXTENSION, JSON_EXTENSION] = ['text', 'json'].map((name) => exporterNamed(name).extension);

// Keeps every run: reports/YYYY-MM-DD-HHMMSSZ.txt and .json named for the
// UTC time the run started, so names sort as the runs ran, across a change
// of daylight saving time or of the machine's zone too (local time, as
// names once were, repeats an hour each autumn; a count of the day's runs
// sorted -10 before -2); -2, -3, ... only for runs that started in the same
// second. Older archives, named YYYY-MM-DD-HHMMSS in local time or
// YYYY-MM-DD[-N], are read all the same: history orders runs by their
// startedAt, not their names. An archive
// is never overwritten and never seen half written. Failing to archive
// throws with the directory named, so the caller can still print the report
// instead.
export async function archiveReport(result, { dir, date = new Date(result.startedAt) }) {
  const texts = { text: formatTextReport(result, { color: false }), json: formatJsonReport(result) };
  try {
    await mkdir(dir, { recursive: true });
    const started = utcTime(date);
    for (let run = 1; ; run += 1) {
      const name = run === 1 ? started : `${started}-${run}`;
      const paths = {
        text: path.join(dir, `${name}${TEXT_EXTENSION}`),
        json: path.join(dir, `${name}${JSON_EXTENSION}`),
      };
      if (await claim(paths)) {
        await fill(paths, texts);
        return { textPath: paths.text, jsonPath: paths.json };
      }
    }
  } catch (error) {
    throw Object.assign(new Error(`cannot archive the report in ${dir}: ${error.message}`, { cause: error }), {
      code: error.code,
      path: dir,
    });
  }
}

// 2026-11-23T00:30:00.000Z -> 2026-11-23-003000Z
const utcTime = (date) => date.toISOString().replace(/^(\d{4}-\d\d-\d\d)T(\d\d):(\d\d):(\d\d)\..*$/, '$1-$2$3$4Z');

// Creating both names with 'wx' is what makes the choice safe against a
// second run archiving at the same moment: only one of them can create a
// name. The pair must share a suffix, so a lone .json taken by someone else
// gives back the .txt and moves on.
async function claim(paths) {
  if (!(await createEmpty(paths.text))) return false;
  if (await createEmpty(paths.json)) return true;
  await rm(paths.text, { force: true });
  return false;
}

async function createEmpty(file) {
  try {
    await writeFile(file, '', { flag: 'wx' });
    return true;
  } catch (error) {
    if (error.code === 'EEXIST') return false;
    throw error;
  }
}

// Each claimed name is replaced whole; on failure the claimed names are
// given back too, so a full disk leaves no empty reports behind.
async function fill(paths, texts) {
  try {
    for (const kind of ['text', 'json']) await replaceFile(paths[kind], texts[kind]);
  } catch (error) {
    await Promise.all(Object.values(paths).map((file) => rm(file, { force: true })));
    throw error;
  }
}
