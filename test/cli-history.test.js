import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { buildHistory, readArchivedRuns } from '../lib/report/history.js';
import { formatHistoryHtml } from '../lib/report/history-html.js';
import { CHROMIUM, CHROMIUM_ARGS, loadChromium } from './support/chromium.js';
import { emptyFolder, runCli } from './support/cli.js';

// A real run (17 cases, 3 runs each: docs/figures/peers-p1.json) archived
// again on later days, as `cipherbench run` leaves reports/ after a while.
const REAL = JSON.parse(readFileSync(new URL('../docs/figures/peers-p1.json', import.meta.url), 'utf8'));
const AES_128 = 'ss-base + ss-aead-cipher(aes-128-gcm)';

// The run on day `day` after the real one, every figure times `scale`, and
// the aes-128-gcm chain's times `aesScale`.
function laterRun(day, { scale = 1, aesScale = 1, cpu } = {}) {
  const result = structuredClone(REAL);
  result.startedAt = new Date(Date.parse(REAL.startedAt) + day * 86_400_000).toISOString();
  if (cpu) result.environment.cpu.model = cpu;
  for (const caseResult of result.cases) {
    const factor =
      scale *
      (caseResult.label === undefined && caseResult.presets?.at(-1).params?.method === 'aes-128-gcm' ? aesScale : 1);
    for (const side of [caseResult.sender, caseResult.receiver].filter(Boolean)) {
      for (const key of ['bits_per_second', 'min', 'max']) side[key] *= factor;
    }
    for (const run of caseResult.runs) {
      for (const side of [run.sender, run.receiver].filter(Boolean)) side.bits_per_second *= factor;
    }
  }
  return result;
}

function archive(dir, name, result) {
  writeFileSync(path.join(dir, name), JSON.stringify(result));
}

test('history: per case over time, the change judged as compare does, other machines apart, bad files one line each', async () => {
  const cwd = emptyFolder();
  const reports = path.join(cwd, 'reports');
  mkdirSync(reports);
  archive(reports, '2026-11-01.json', laterRun(0));
  archive(reports, '2026-11-08.json', laterRun(7, { scale: 1.01 }));
  // aes-128-gcm at half its speed: every run below every run before.
  archive(reports, '2026-11-15.json', laterRun(14, { aesScale: 0.5 }));
  archive(reports, '2026-11-16.json', laterRun(15, { cpu: 'Another CPU' }));
  writeFileSync(path.join(reports, 'broken.json'), '{"cases": [');
  archive(reports, 'newer.json', { ...laterRun(16), resultVersion: 99 });
  mkdirSync(path.join(reports, 'a-folder.json'));
  writeFileSync(path.join(reports, '2026-11-01.txt'), 'the text report beside it\n');

  const { code, stdout, stderr } = await runCli(['history'], { cwd, env: { NO_COLOR: '1' } });
  assert.equal(code, 0, stderr);
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 3, stderr);
  assert.match(stderr, /^cipherbench: .*reports\/broken\.json is not JSON/m);
  assert.match(stderr, /^cipherbench: .*reports\/newer\.json: result version 99 is newer than this cipherbench reads/m);
  assert.match(stderr, /^cipherbench: cannot read .*reports\/a-folder\.json: /m);

  assert.match(stdout, /^2 machines, engines or workloads: each has its own history below/);
  assert.match(
    stdout,
    /\nAMD EPYC, 2 cores, engine iperf3; TCP bulk at full speed, 1 stream, 3 s a run: 3 runs, 2026-11-\d\d to 2026-12-\d\d\n/,
  );
  assert.match(
    stdout,
    /\nAnother CPU, 2 cores, engine iperf3; TCP bulk at full speed, 1 stream, 3 s a run: 1 run, 2026-12-\d\d\n/,
  );
  const aes = stdout
    .slice(stdout.indexOf(`\n${AES_128}\n`) + 1)
    .split('\n\n')[0]
    .split('\n');
  assert.match(
    aes[2],
    /^ {2}\d{4}-\d\d-\d\d \d\d:\d\d +[\d.]+ Gbits\/sec +[\d.]+\.\.[\d.]+ +3$/,
    'the first run has no change',
  );
  // Every case 1% faster, the reference too: compared round by round
  // against the run's reference (--relative-to), nothing changed.
  assert.match(aes[3], / 3 +[+-]?0\.0% +within (noise|threshold)$/);
  assert.match(aes[4], / 3 +-50\.\d% \[-\d+\.\d%, -\d+\.\d%\] +slower$/, aes.join('\n'));

  const json = await runCli(['history', 'reports', '--json'], { cwd });
  assert.equal(json.code, 0, json.stderr);
  const history = JSON.parse(json.stdout);
  assert.deepEqual(
    history.machines.map((machine) => machine.runs.length),
    [3, 1],
  );
  const series = history.machines[0].cases.find((entry) => entry.label === AES_128);
  assert.deepEqual(
    series.points.map((point) => point.change?.verdict ?? null),
    [null, series.points[1].change.verdict, 'slower'],
  );
  assert.equal(series.points[2].change.regressed, true);
});

test('history with nothing to read: one line, exit 2', async () => {
  const cwd = emptyFolder();
  mkdirSync(path.join(cwd, 'reports'));
  const empty = await runCli(['history'], { cwd });
  assert.equal(empty.code, 2);
  assert.equal(
    empty.stderr,
    'cipherbench: no archived runs (*.json) in ./reports: cipherbench run archives one there each time (--out)\n',
  );
  const missing = await runCli(['history', 'nowhere'], { cwd });
  assert.equal(missing.code, 2);
  assert.equal(missing.stderr, 'cipherbench: cannot read nowhere: no such folder\n');
  writeFileSync(path.join(cwd, 'reports', 'x.json'), '[]');
  const unreadable = await runCli(['history'], { cwd });
  assert.equal(unreadable.code, 2);
  assert.match(
    unreadable.stderr,
    /^cipherbench: .*x\.json is not a cipherbench result .*\ncipherbench: no readable archived run in \.\/reports\n$/,
  );
  assert.equal(unreadable.stdout, '');
});

// 50 runs, as a year of weekly runs leaves them, laid out by Chromium at a
// laptop's 1200 px and a phone's 390 px.
test(
  'history --html over 50 runs: a chart per case, every run a point with its environment, laid out at 1200 px and 390 px',
  { timeout: 120_000 },
  async (t) => {
    const cwd = emptyFolder();
    const reports = path.join(cwd, 'reports');
    mkdirSync(reports);
    for (let week = 0; week < 50; week++)
      archive(
        reports,
        `run-${String(week).padStart(2, '0')}.json`,
        laterRun(week * 7, { scale: 1 + 0.1 * Math.sin(week / 5) }),
      );
    const started = performance.now();
    const { runs, problems } = await readArchivedRuns(reports);
    const html = formatHistoryHtml(buildHistory(runs));
    t.diagnostic(`50 runs read, judged and drawn in ${Math.round(performance.now() - started)} ms`);
    assert.deepEqual(problems, []);
    assert.doesNotMatch(html, /<script|<link|<img|<iframe|@import|url\(/i);
    assert.equal(
      html.match(/<svg class="history"/g).length,
      REAL.cases.filter((entry) => entry.status === 'ok').length,
    );
    assert.equal(
      html.match(/<circle class="run/g).length,
      50 * REAL.cases.filter((entry) => entry.status === 'ok').length,
    );
    assert.match(html, /<title>[^<]*\nNode\.js: 20\.[^<]*\nfile: [^<]*run-00\.json<\/title>/);

    const { chromium, skip } = await loadChromium();
    if (skip) {
      t.skip(skip);
      return;
    }
    const dir = await mkdtemp(path.join(tmpdir(), 'cipherbench-history-'));
    let context = null;
    t.after(async () => {
      await context?.close();
      await rm(dir, { recursive: true, force: true });
    });
    const page = path.join(dir, 'history.html');
    writeFileSync(page, html);
    context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    const tab = await context.newPage();
    for (const width of [1200, 390]) {
      await tab.setViewportSize({ width, height: 900 });
      await tab.goto(pathToFileURL(page).href, { waitUntil: 'load' });
      const laid = await tab.evaluate(() => {
        const box = (element) => element.getBoundingClientRect();
        const charts = [...document.querySelectorAll('svg.history')];
        return {
          pageWidth: document.documentElement.scrollWidth,
          viewport: window.innerWidth,
          scrolling: charts.filter((svg) => svg.parentElement.scrollWidth > svg.parentElement.clientWidth).length,
          clipped: charts.flatMap((svg) =>
            [...svg.querySelectorAll('text, circle')]
              .filter(
                (mark) =>
                  box(mark).left < box(svg).left - 0.5 ||
                  box(mark).right > box(svg).right + 0.5 ||
                  box(mark).top < box(svg).top - 0.5 ||
                  box(mark).bottom > box(svg).bottom + 0.5,
              )
              .map((mark) => mark.textContent.split('\n')[0]),
          ),
          // Later runs to the right, one point each.
          ordered: charts.every((svg) => {
            const xs = [...svg.querySelectorAll('circle')].map((circle) => Number(circle.getAttribute('cx')));
            return xs.length === 50 && xs.every((x, i) => i === 0 || x > xs[i - 1]);
          }),
        };
      });
      assert.equal(laid.pageWidth, laid.viewport, `${width} px: the page scrolls sideways (${laid.pageWidth} px wide)`);
      assert.equal(laid.scrolling, 0, `${width} px: every chart fits`);
      assert.deepEqual(laid.clipped, [], `${width} px: marks cut off at a chart's edges`);
      assert.equal(laid.ordered, true, 'one point per run, in time order');
    }
  },
);

// Runs of one day (a morning of tries): the time axis gives times, not the
// same date four times over.
test('history --html: runs within one day are ticked by time, runs over days by date', () => {
  const dayOf = (offsets) => buildHistory(offsets.map((day, at) => ({ file: `r${at}.json`, result: laterRun(day) })));
  const ticks = (history) =>
    [
      ...formatHistoryHtml(history)
        .split('<svg class="history"')[1]
        .matchAll(/<text class="tick"[^>]*text-anchor="(?:start|middle|end)">([^<]*)<\/text>/g),
    ]
      .map(([, text]) => text)
      .filter((text) => !/^[\d.]+$/.test(text));
  const start = new Date(REAL.startedAt);
  const hhmm = (hours) => new Date(start.getTime() + hours * 3_600_000).toISOString().slice(11, 16);
  const oneDay = ticks(dayOf([0, 1 / 24, 3 / 24]));
  assert.deepEqual(oneDay, [`${REAL.startedAt.slice(0, 10)} ${hhmm(0)}`, hhmm(1), hhmm(2), hhmm(3)]);
  const weeks = ticks(dayOf([0, 21]));
  assert.equal(new Set(weeks).size, 4, weeks.join(', '));
  for (const text of weeks) assert.match(text, /^\d{4}-\d\d-\d\d$/);
});

// Real runs of four workloads in one folder (two identical TCP smoke runs,
// a requests smoke run, a UDP run at 50 Mbit/s, the 3 s TCP run above), and
// one TCP smoke run cut short by Ctrl-C: a history each, the cut one apart.
test('history keeps one series per workload and lists runs cut short apart, in no trend', async () => {
  const cwd = emptyFolder();
  const reports = path.join(cwd, 'reports');
  mkdirSync(reports);
  const fixture = (name) => JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8'));
  const smokeNew = fixture('./fixtures/compare/smoke-2.json');
  archive(reports, 'smoke-1.json', fixture('./fixtures/compare/smoke-1.json'));
  archive(reports, 'smoke-2.json', smokeNew);
  archive(reports, 'requests.json', fixture('./fixtures/compare/requests-smoke.json'));
  archive(reports, 'udp.json', fixture('../docs/figures/udp-50M-v2ray.json'));
  archive(reports, 'tcp-3s.json', REAL);
  const cut = structuredClone(smokeNew);
  Object.assign(cut, { startedAt: '2026-11-29T08:00:00.000Z', complete: false, interrupted: 'SIGINT' });
  // Half its speed: were it a point, the trend would read slower.
  for (const caseResult of cut.cases)
    caseResult.runs.forEach((run) => {
      run.receiver.bits_per_second /= 2;
    });
  archive(reports, 'smoke-cut.json', cut);

  const { code, stdout, stderr } = await runCli(['history'], { cwd, env: { NO_COLOR: '1' } });
  assert.equal(code, 0, stderr);
  const headers = stdout.split('\n').filter((line) => /: \d+ runs?, 20\d\d-/.test(line));
  assert.deepEqual(headers.map((line) => line.replace(/^.*?; /, '').replace(/: (\d+ runs?).*$/, ' | $1')).sort(), [
    'TCP bulk at full speed, 1 stream, 1 s a run | 2 runs',
    'TCP bulk at full speed, 1 stream, 3 s a run | 1 run',
    'UDP at 50.0 Mbits/sec offered, 1200-byte datagrams, 3 s a run | 1 run',
    'requests, 20 clients, 2-byte responses, kept-alive connections, 1 s a run | 1 run',
  ]);
  assert.match(stdout, /^4 machines, engines or workloads: each has its own history below/);
  // The requests series in requests per second.
  assert.match(stdout, /\n {2}\d{4}-\d\d-\d\d \d\d:\d\d +28476 req\/s +\[23069, 29552\] +3\n/);
  // The two smoke runs: the machine changed between them, not the code.
  assert.match(stdout, /\+141\.8% \[\+27\.9%, \+399\.8%\] +the machine changed$/m);
  assert.doesNotMatch(stdout, /(slower|faster)$/m);
  assert.match(
    stdout,
    /\nLeft out of the trends, cut short \(1\):\n {2}2026-11-29 08:00 {2}reports\/smoke-cut\.json \(SIGINT; .*; TCP bulk at full speed, 1 stream, 1 s a run\)\n/,
  );

  const json = JSON.parse((await runCli(['history', '--json'], { cwd })).stdout);
  assert.deepEqual(
    json.interrupted.map((run) => [run.file, run.reason]),
    [['reports/smoke-cut.json', 'SIGINT']],
  );
  assert.ok(json.machines.every((machine) => machine.runs.every((run) => !run.file.endsWith('smoke-cut.json'))));
});
