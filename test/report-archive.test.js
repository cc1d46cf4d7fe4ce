import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { archiveReport } from '../lib/report/archive.js';
import { readArchivedRuns } from '../lib/report/history.js';
import { formatTextReport } from '../lib/report/text-report.js';

const execFileAsync = promisify(execFile);

// 2026-11-23 at 00:30 UTC: the name follows UTC whatever this machine's
// zone, whose day differs from the UTC day in many zones.
const STARTED = new Date(Date.UTC(2026, 10, 23, 0, 30));

function sampleResult() {
  const presets = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }];
  return {
    tool: { name: 'cipherbench', version: '0.1.0' },
    startedAt: STARTED.toISOString(),
    finishedAt: new Date(STARTED.getTime() + 4000).toISOString(),
    wallSeconds: 4,
    complete: true,
    interrupted: null,
    environment: {
      cpu: { model: 'AMD EPYC 7B13', cores: 2, physicalCores: 1, aes: true },
      memory: 25217482752,
      os: {
        type: 'Linux',
        platform: 'linux',
        arch: 'x64',
        release: '6.18.44',
        distro: 'Debian GNU/Linux 12 (bookworm)',
      },
      node: { node: '20.20.2' },
      iperf3: { path: '/usr/bin/iperf3', version: '3.12' },
    },
    options: {
      casesFile: '/tmp/cases.js',
      duration: 3,
      parallel: 1,
      filter: null,
      ports: { client: 1081, server: 1082, target: 1083 },
    },
    cases: [
      {
        index: 0,
        presets,
        status: 'ok',
        reason: null,
        sender: { bytes: 804000000, seconds: 3.0, bits_per_second: 2.25e9 },
        receiver: { bytes: 489000000, seconds: 3.31, bits_per_second: 1.24e9 },
        wallSeconds: 3.4,
      },
    ],
  };
}

async function freshDir(t) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cipherbench-archive-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('writes the text and JSON reports named for the UTC time the run started, with a Z', async (t) => {
  const dir = path.join(await freshDir(t), 'reports', 'nested');
  const result = sampleResult();
  const { textPath, jsonPath } = await archiveReport(result, { dir });
  assert.equal(textPath, path.join(dir, '2026-11-23-003000Z.txt'));
  assert.equal(jsonPath, path.join(dir, '2026-11-23-003000Z.json'));
  assert.equal(await readFile(textPath, 'utf8'), formatTextReport(result, { color: false }));
  assert.deepEqual(JSON.parse(await readFile(jsonPath, 'utf8')), result);
  assert.deepEqual((await readdir(dir)).sort(), ['2026-11-23-003000Z.json', '2026-11-23-003000Z.txt']);
});

test('a second and third run started in the same second get -2 and -3 and leave no temporary files', async (t) => {
  const dir = await freshDir(t);
  const paths = [];
  for (let run = 0; run < 3; run += 1) paths.push(await archiveReport(sampleResult(), { dir }));
  assert.deepEqual(
    paths.map(({ textPath }) => path.basename(textPath)),
    ['2026-11-23-003000Z.txt', '2026-11-23-003000Z-2.txt', '2026-11-23-003000Z-3.txt'],
  );
  assert.deepEqual(
    paths.map(({ jsonPath }) => path.basename(jsonPath)),
    ['2026-11-23-003000Z.json', '2026-11-23-003000Z-2.json', '2026-11-23-003000Z-3.json'],
  );
  assert.deepEqual((await readdir(dir)).sort(), [
    '2026-11-23-003000Z-2.json',
    '2026-11-23-003000Z-2.txt',
    '2026-11-23-003000Z-3.json',
    '2026-11-23-003000Z-3.txt',
    '2026-11-23-003000Z.json',
    '2026-11-23-003000Z.txt',
  ]);
});

test('runs archiving at the same moment each get their own suffix', async (t) => {
  const dir = await freshDir(t);
  const paths = await Promise.all(Array.from({ length: 5 }, () => archiveReport(sampleResult(), { dir })));
  const names = paths.map(({ textPath }) => path.basename(textPath, '.txt')).sort();
  assert.deepEqual(names, [
    '2026-11-23-003000Z',
    '2026-11-23-003000Z-2',
    '2026-11-23-003000Z-3',
    '2026-11-23-003000Z-4',
    '2026-11-23-003000Z-5',
  ]);
  for (const { jsonPath } of paths) assert.equal(JSON.parse(await readFile(jsonPath, 'utf8')).tool.name, 'cipherbench');
  assert.equal((await readdir(dir)).length, 10);
});

test('the .txt and .json of a run share a suffix, skipping one that only one of them holds', async (t) => {
  const dir = await freshDir(t);
  await writeFile(path.join(dir, '2026-11-23-003000Z.json'), 'kept');
  const { textPath, jsonPath } = await archiveReport(sampleResult(), { dir });
  assert.equal(path.basename(textPath), '2026-11-23-003000Z-2.txt');
  assert.equal(path.basename(jsonPath), '2026-11-23-003000Z-2.json');
  assert.equal(await readFile(path.join(dir, '2026-11-23-003000Z.json'), 'utf8'), 'kept');
  assert.deepEqual((await readdir(dir)).sort(), [
    '2026-11-23-003000Z-2.json',
    '2026-11-23-003000Z-2.txt',
    '2026-11-23-003000Z.json',
  ]);
});

test('names sort in the order the runs started, and archives named the old way are still read', async (t) => {
  const dir = await freshDir(t);
  const starts = [
    new Date(Date.UTC(2026, 10, 23, 9, 5, 3)),
    new Date(Date.UTC(2026, 10, 23, 10, 0, 0)),
    new Date(Date.UTC(2026, 10, 23, 23, 59, 59)),
    new Date(Date.UTC(2026, 10, 24, 0, 0, 1)),
  ];
  for (const date of starts.toReversed()) {
    await archiveReport({ ...sampleResult(), startedAt: date.toISOString() }, { dir });
  }
  const names = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  assert.deepEqual(names, [
    '2026-11-23-090503Z.json',
    '2026-11-23-100000Z.json',
    '2026-11-23-235959Z.json',
    '2026-11-24-000001Z.json',
  ]);
  // Before, names were local time (an hour repeats each autumn), and
  // before that the day's runs were counted: -2 ... -10, a name order that
  // is not the order they ran in.
  await writeFile(
    path.join(dir, '2026-11-22-10.json'),
    JSON.stringify({ ...sampleResult(), startedAt: new Date(2026, 10, 22, 20).toISOString() }),
  );
  await writeFile(
    path.join(dir, '2026-11-22-2.json'),
    JSON.stringify({ ...sampleResult(), startedAt: new Date(2026, 10, 22, 8).toISOString() }),
  );
  await writeFile(
    path.join(dir, '2026-11-22-220000.json'),
    JSON.stringify({ ...sampleResult(), startedAt: new Date(Date.UTC(2026, 10, 22, 21)).toISOString() }),
  );
  const { runs, problems } = await readArchivedRuns(dir);
  assert.deepEqual(problems, []);
  assert.deepEqual(
    runs.map(({ file }) => path.basename(file)),
    ['2026-11-22-2.json', '2026-11-22-10.json', '2026-11-22-220000.json', ...names],
  );
});

// In New York the autumn's 01:00 to 02:00 comes twice: named for local
// time, a run at 01:30 EDT and one at 01:10 EST forty minutes later sorted
// the other way round, and so did runs either side of a change of zone.
test('names sort as the runs ran across a change of daylight saving time or of zone', async (t) => {
  const dir = await freshDir(t);
  const zone = process.env.TZ;
  t.after(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });
  const runs = [
    ['America/New_York', Date.UTC(2026, 10, 1, 5, 30)],
    ['America/New_York', Date.UTC(2026, 10, 1, 6, 10)],
    ['Asia/Tokyo', Date.UTC(2026, 10, 1, 7, 0)],
  ];
  const names = [];
  for (const [tz, time] of runs) {
    process.env.TZ = tz;
    const { jsonPath } = await archiveReport({ ...sampleResult(), startedAt: new Date(time).toISOString() }, { dir });
    names.push(path.basename(jsonPath));
  }
  assert.deepEqual(names, ['2026-11-01-053000Z.json', '2026-11-01-061000Z.json', '2026-11-01-070000Z.json']);
  assert.deepEqual([...names].sort(), names);
});

test('an explicit date names the files', async (t) => {
  const dir = await freshDir(t);
  const { textPath } = await archiveReport(sampleResult(), { dir, date: new Date(Date.UTC(2027, 0, 5, 23, 59)) });
  assert.equal(path.basename(textPath), '2027-01-05-235900Z.txt');
});

test('a directory that cannot be created fails naming the path', async (t) => {
  const base = await freshDir(t);
  // Works as root too, where permissions do not stop a write.
  await writeFile(path.join(base, 'a-file'), '');
  const dir = path.join(base, 'a-file', 'reports');
  await assert.rejects(archiveReport(sampleResult(), { dir }), (error) => {
    assert.equal(error.code, 'ENOTDIR');
    assert.ok(error.message.includes(dir), error.message);
    return true;
  });
});

// Root writes through a read-only mode, so as root the attempt runs in a
// child with the uid of nobody: the same check, not a skip. Nobody may not
// be able to read this checkout (a clone in a 0700 temporary folder), so it
// gets a copy of lib/ and chalk of its own, readable by all.
const NOBODY = 65534;
const checkout = new URL('..', import.meta.url);

async function readableCopy(t) {
  const root = await freshDir(t);
  await chmod(root, 0o755);
  await cp(new URL('lib', checkout), path.join(root, 'lib'), { recursive: true });
  await cp(new URL('node_modules/chalk', checkout), path.join(root, 'node_modules', 'chalk'), { recursive: true });
  await cp(new URL('package.json', checkout), path.join(root, 'package.json'));
  return root;
}

async function archiveAs(t, uid, dir) {
  const root = uid === null ? fileURLToPath(checkout) : await readableCopy(t);
  const archive = pathToFileURL(path.join(root, 'lib', 'report', 'archive.js')).href;
  const script = `
    const { archiveReport } = await import(${JSON.stringify(archive)});
    try {
      await archiveReport(${JSON.stringify(sampleResult())}, { dir: ${JSON.stringify(dir)} });
      console.log(JSON.stringify({ written: true }));
    } catch (error) {
      console.log(JSON.stringify({ code: error.code, message: error.message }));
    }`;
  const { stdout } = await execFileAsync(
    process.execPath,
    ['--input-type=module', '-e', script],
    uid === null ? {} : { uid, gid: uid },
  );
  return JSON.parse(stdout);
}

test('a read-only directory fails naming the path and leaves nothing behind', async (t) => {
  const parent = await freshDir(t);
  await chmod(parent, 0o755);
  const dir = path.join(parent, 'reports');
  await mkdir(dir);
  await chmod(dir, 0o555);
  const outcome = await archiveAs(t, process.getuid?.() === 0 ? NOBODY : null, dir);
  assert.equal(outcome.code, 'EACCES', JSON.stringify(outcome));
  assert.ok(outcome.message.includes(dir), outcome.message);
  assert.deepEqual(await readdir(dir), []);
});
