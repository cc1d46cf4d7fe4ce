import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatHtmlReport } from '../lib/report/html-report.js';
import { upgradeResult } from '../lib/result.js';

// The page as Chromium lays it out; what the HTML says without a browser
// is test/unit/report-html.test.js's.

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const fixture = () => JSON.parse(readFileSync(new URL('./fixtures/result-v2.json', import.meta.url), 'utf8'));

// .ci/run installs chromium; elsewhere a missing browser skips with the
// reason, but in CI it must fail, or the chart would go untested unseen.
async function loadChromium() {
  const missing = !existsSync(CHROMIUM)
    ? `${CHROMIUM} not found (apt-get install chromium)`
    : await import('playwright-core').then(
        () => null,
        () => 'playwright-core not installed (npm ci)',
      );
  if (missing && process.env.CI === 'true') throw new Error(`the HTML report test needs a browser: ${missing}`);
  return missing ? { skip: missing } : { chromium: (await import('playwright-core')).chromium };
}

test('Chromium draws the chart: bars and whiskers sized and ordered like the data', async (t) => {
  const { chromium, skip } = await loadChromium();
  if (skip) {
    t.diagnostic(`skipped: ${skip}`);
    t.skip(skip);
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'cipherbench-html-'));
  let context = null;
  // The browser goes before its profile folder does.
  t.after(async () => {
    await context?.close();
    await rm(dir, { recursive: true, force: true });
  });
  const page = join(dir, 'report.html');
  await writeFile(page, formatHtmlReport(fixture()));

  context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  const tab = await context.newPage();
  const requests = [];
  tab.on('request', (request) => requests.push(request.url()));
  await tab.goto(pathToFileURL(page).href, { waitUntil: 'load' });
  assert.deepEqual(requests, [pathToFileURL(page).href], 'the page fetched nothing but itself');

  const drawn = await tab.evaluate(() => {
    const box = (element) => {
      const { left, right, width, height } = element.getBoundingClientRect();
      return { left, right, width, height };
    };
    const marks = (selector) =>
      [...document.querySelectorAll(selector)].map((element) => ({
        ...box(element),
        ...element.dataset,
      }));
    return {
      senders: marks('#chart rect.bar.sender[data-case]'),
      receivers: marks('#chart rect.bar.receiver[data-case]'),
      whiskers: { senders: marks('#chart g.whisker.sender'), receivers: marks('#chart g.whisker.receiver') },
      rankingRows: document.querySelectorAll('#ranking tbody tr').length,
      unstableRows: [...document.querySelectorAll('#ranking tbody tr.unstable')].map((row) => row.cells[1].textContent),
      latencyRows: document.querySelectorAll('#latency tbody tr').length,
      environment: Object.fromEntries(
        [...document.querySelectorAll('#environment tr')].map((row) => [
          row.cells[0].textContent,
          row.cells[1].textContent,
        ]),
      ),
      svg: box(document.querySelector('#chart svg')),
    };
  });

  // Four measured cases, in rank order: two bars and two whiskers each.
  assert.equal(drawn.rankingRows, 4);
  assert.deepEqual(drawn.unstableRows, ['1']);
  assert.equal(drawn.latencyRows, 8);
  assert.equal(drawn.environment.CPU, 'AMD EPYC 7B13, 2 cores (1 physical), AES');
  assert.deepEqual(
    drawn.receivers.map((bar) => [bar.case, bar.direction]),
    [
      ['0', 'forward'],
      ['0', 'reverse'],
      ['1', 'reverse'],
      ['1', 'forward'],
    ],
  );
  assert.equal(drawn.senders.length, 4);
  assert.equal(drawn.whiskers.senders.length, 4);
  assert.equal(drawn.whiskers.receivers.length, 4);

  for (const bar of [...drawn.senders, ...drawn.receivers]) {
    assert.ok(bar.width > 10 && bar.height > 5, `bar ${bar.case} ${bar.direction} is ${bar.width}x${bar.height}`);
  }
  // Ranked highest first: receiver bars shrink down the chart, and every
  // bar's length is proportional to its bitrate (one scale for all).
  const widths = drawn.receivers.map((bar) => bar.width);
  assert.deepEqual(
    widths,
    [...widths].sort((a, b) => b - a),
  );
  const pixelsPerBit = drawn.receivers[0].width / Number(drawn.receivers[0].bps);
  for (const bar of [...drawn.senders, ...drawn.receivers]) {
    assert.ok(Math.abs(bar.width - Number(bar.bps) * pixelsPerBit) < 1, `bar ${bar.case} ${bar.direction} off scale`);
  }
  // Each whisker spans min..max on the same scale, around the end of its
  // median bar (marks of one role come in rank order, bar by bar).
  for (const role of ['senders', 'receivers']) {
    for (const [position, whisker] of drawn.whiskers[role].entries()) {
      const bar = drawn[role][position];
      const name = `${role} whisker of case ${bar.case} ${bar.direction}`;
      assert.deepEqual([whisker.case, whisker.direction], [bar.case, bar.direction]);
      assert.ok(whisker.width > 0, `${name} drawn`);
      assert.ok(whisker.left - 1 <= bar.right && bar.right <= whisker.right + 1, `${name} around its bar`);
      assert.ok(
        Math.abs(whisker.width - (Number(whisker.max) - Number(whisker.min)) * pixelsPerBit) < 1.5,
        `${name} on scale`,
      );
    }
  }
  // The unstable chacha20 case (ranked last) has the widest receiver whisker.
  const spans = drawn.whiskers.receivers.map((whisker) => whisker.width);
  assert.equal(Math.max(...spans), spans[3]);

  const screenshot = join(dir, 'chart.png');
  await tab.locator('#chart svg').screenshot({ path: screenshot });
  const png = await readFile(screenshot);
  assert.deepEqual(png.subarray(0, 8), PNG_SIGNATURE);
  // IHDR: width and height as drawn (to the pixel, as the browser rounds
  // them); a blank image that size packs to about 1 KB.
  assert.ok(Math.abs(png.readUInt32BE(16) - drawn.svg.width) <= 1, `png width ${png.readUInt32BE(16)}`);
  assert.ok(Math.abs(png.readUInt32BE(20) - drawn.svg.height) <= 1, `png height ${png.readUInt32BE(20)}`);
  assert.ok((await stat(screenshot)).size > 10_000, `chart screenshot of ${png.length} bytes looks empty`);
});

// A real run with the machine's ceilings in it (docs/figures/peers-p1.json:
// direct at 29 Gbit/s, the ciphers at 0.6 to 6), laid out by Chromium at a
// laptop's 1200 px and a phone's 390 px. The screenshots stay in
// .tmp/report-html/ (ignored by git) for a person to look at.
const SHOTS = fileURLToPath(new URL('../.tmp/report-html/', import.meta.url));

test(
  'Chromium at 1200 px and 390 px: the page never scrolls sideways, the table fits, the ceilings do not squash the cases',
  { timeout: 60_000 },
  async (t) => {
    const { chromium, skip } = await loadChromium();
    if (skip) {
      t.diagnostic(`skipped: ${skip}`);
      t.skip(skip);
      return;
    }
    const result = JSON.parse(readFileSync(new URL('../docs/figures/peers-p1.json', import.meta.url), 'utf8'));
    const dir = await mkdtemp(join(tmpdir(), 'cipherbench-html-layout-'));
    let context = null;
    t.after(async () => {
      await context?.close();
      await rm(dir, { recursive: true, force: true });
    });
    await mkdir(SHOTS, { recursive: true });
    const page = join(dir, 'report.html');
    await writeFile(page, formatHtmlReport(result));
    context = await chromium.launchPersistentContext(join(dir, 'profile'), {
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
        const svg = document.querySelector('#chart svg');
        const svgBox = box(svg);
        const bars = [...document.querySelectorAll('#chart rect.bar.receiver[data-case]')];
        const plotLeft = Math.min(...bars.map((bar) => box(bar).left));
        const gridRight = Math.max(
          ...[...document.querySelectorAll('#chart line.grid')].map((line) => box(line).right),
        );
        return {
          pageWidth: document.documentElement.scrollWidth,
          viewport: window.innerWidth,
          table: {
            scrollWidth: document.querySelector('#ranking table').scrollWidth,
            boxWidth: document.querySelector('#ranking .scroll').clientWidth,
          },
          // Text outside the drawing is cut off: every label, value and tick inside.
          clipped: [...svg.querySelectorAll('text')]
            .filter((text) => box(text).left < svgBox.left - 0.5 || box(text).right > svgBox.right + 0.5)
            .map((text) => text.textContent),
          barCases: bars.map((bar) => bar.dataset.case),
          references: [...document.querySelectorAll('#chart g.reference')].map((mark) => ({
            case: mark.dataset.case,
            offScale: mark.classList.contains('off-scale'),
          })),
          widestBarShare: Math.max(...bars.map((bar) => box(bar).width)) / (gridRight - plotLeft),
          ticks: [...document.querySelectorAll('#chart text.tick')].map((text) => text.textContent),
          chartScrolls:
            document.querySelector('#chart .scroll').scrollWidth > document.querySelector('#chart .scroll').clientWidth,
          // The figure each case is ranked by, and the marks beside it, as
          // far right as they reach on screen.
          receivers: [
            ...document.querySelectorAll('#ranking tbody td[data-title^="Receiver"]:not([data-title^="Receiver min"])'),
          ].map((cell) => ({
            text: cell.textContent,
            right: Math.max(
              ...[cell.querySelector('strong'), ...cell.querySelectorAll('.marker')].map((mark) => box(mark).right),
            ),
            width: box(cell.querySelector('strong')).width,
          })),
          // A name is one line: chains wrap between presets, never at a hyphen.
          brokenNames: [...document.querySelectorAll('#ranking code .name, #latency code .name')]
            .filter((name) => name.getClientRects().length > 1)
            .map((name) => name.textContent),
        };
      });
      await tab.screenshot({ path: join(SHOTS, `peers-${width}.png`), fullPage: true });
      t.diagnostic(`screenshot: ${join(SHOTS, `peers-${width}.png`)}`);

      assert.equal(laid.pageWidth, laid.viewport, `${width} px: the page scrolls sideways (${laid.pageWidth} px wide)`);
      if (width === 1200) {
        assert.ok(
          laid.table.scrollWidth <= laid.table.boxWidth,
          `1200 px: the ranking table (${laid.table.scrollWidth} px) is wider than its box (${laid.table.boxWidth} px)`,
        );
      }
      assert.equal(laid.chartScrolls, false, `${width} px: the chart fits`);
      assert.equal(laid.receivers.length, 18);
      const offScreen = laid.receivers.filter((cell) => !(cell.width > 0 && cell.right <= laid.viewport));
      assert.deepEqual(offScreen, [], `${width} px: receiver figures or their marks off screen`);
      assert.deepEqual(laid.brokenNames, [], `${width} px: names broken across lines`);
      assert.deepEqual(laid.clipped, [], `${width} px: text cut off at the chart's edges`);
      // direct (case 0) and plain (case 1) are marker lines, every other case a bar.
      assert.deepEqual(laid.references, [
        { case: '0', offScale: true },
        { case: '1', offScale: false },
      ]);
      assert.equal(laid.barCases.length, 16);
      assert.ok(!laid.barCases.includes('0') && !laid.barCases.includes('1'));
      assert.ok(
        laid.widestBarShare > 0.6,
        `the fastest case's bar takes ${Math.round(laid.widestBarShare * 100)}% of the axis`,
      );
      // One number of decimals on every tick.
      const decimals = new Set(laid.ticks.map((tick) => (tick.split('.')[1] ?? '').length));
      assert.equal(decimals.size, 1, `ticks ${laid.ticks.join(' ')}`);
    }
  },
);

// The default run on a loaded machine: three rounds a case (every interval
// min..max, at 75 %), every case disturbed, costs, ceilings and a
// reference beside them, as wide as a ranking gets. Made from the same
// real run with those figures added the way the runner records them.
function loadedRun() {
  const result = upgradeResult(
    JSON.parse(readFileSync(new URL('../docs/figures/peers-p1.json', import.meta.url), 'utf8')),
  );
  const disturbed = { runs: 3, of: 3, reason: "other processes took 34% of the machine's CPU (limit 10%)" };
  for (const caseResult of result.cases.filter((each) => each.status === 'ok')) {
    const { receiver, cost } = caseResult;
    caseResult.receiver = { ...receiver, low: receiver.min, high: receiver.max, level: 0.95, coverage: 0.75 };
    caseResult.disturbed = disturbed;
    if (cost) {
      const pair = cost.client.cpuSecondsPerGB + cost.server.cpuSecondsPerGB;
      cost.pair = { cpuSecondsPerGB: pair, low: pair * 0.9, high: pair * 1.1, level: 0.95, coverage: 0.75 };
    }
    if (caseResult.presets && !caseResult.impl && !caseResult.ceiling) {
      const ceiling = { encryptBps: 9.56e9, decryptBps: 11e9, size: 65536 };
      caseResult.ceiling = { ...ceiling, efficiency: receiver.bits_per_second / ceiling.encryptBps };
    }
  }
  return { ...result, rounds: 3 };
}

test(
  'Chromium at 1200 px and 390 px, every case disturbed: the ranking fits, its warning and every mark on screen',
  { timeout: 60_000 },
  async (t) => {
    const { chromium, skip } = await loadChromium();
    if (skip) {
      t.diagnostic(`skipped: ${skip}`);
      t.skip(skip);
      return;
    }
    const dir = await mkdtemp(join(tmpdir(), 'cipherbench-html-loaded-'));
    let context = null;
    t.after(async () => {
      await context?.close();
      await rm(dir, { recursive: true, force: true });
    });
    await mkdir(SHOTS, { recursive: true });
    const page = join(dir, 'report.html');
    await writeFile(page, formatHtmlReport(loadedRun()));
    context = await chromium.launchPersistentContext(join(dir, 'profile'), {
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
        const warning = document.querySelector('#ranking .warning');
        const table = document.querySelector('#ranking table');
        return {
          pageWidth: document.documentElement.scrollWidth,
          viewport: window.innerWidth,
          table: { scrollWidth: table.scrollWidth, boxWidth: document.querySelector('#ranking .scroll').clientWidth },
          // Above the table, whole, within the page's width.
          warning: warning && {
            text: warning.textContent,
            left: box(warning).left,
            right: box(warning).right,
            above: box(warning).bottom <= box(table).top,
          },
          // Every cell's text within the cell (none clipped), and every
          // mark of a rank within the page.
          clippedCells: [...table.querySelectorAll('td')]
            .filter((cell) => cell.scrollWidth > cell.clientWidth + 1)
            .map((cell) => `${cell.dataset.title}: ${cell.textContent}`),
          marks: [...table.querySelectorAll('td .marker .mark')].map((mark) => ({
            text: mark.textContent,
            left: box(mark).left,
            right: box(mark).right,
          })),
          headerHeight: box(table.querySelector('thead tr')).height,
        };
      });
      await tab.screenshot({ path: join(SHOTS, `loaded-${width}.png`), fullPage: true });
      t.diagnostic(`screenshot: ${join(SHOTS, `loaded-${width}.png`)}`);

      assert.equal(laid.pageWidth, laid.viewport, `${width} px: the page scrolls sideways (${laid.pageWidth} px wide)`);
      assert.ok(
        laid.table.scrollWidth <= laid.table.boxWidth,
        `${width} px: the ranking table (${laid.table.scrollWidth} px) is wider than its box (${laid.table.boxWidth} px)`,
      );
      assert.match(laid.warning?.text ?? '', /^DISTURBED: 18 of 18 ranked cases were measured while other processes/);
      assert.ok(
        laid.warning.above && laid.warning.left >= 0 && laid.warning.right <= laid.viewport,
        `${width} px: the warning`,
      );
      assert.deepEqual(laid.clippedCells, [], `${width} px: cells cut off`);
      assert.equal(laid.marks.filter((mark) => /^disturbed in 3 of 3 runs$/.test(mark.text)).length, 18);
      assert.ok(laid.marks.some((mark) => /^overlaps #\d+-#\d+/.test(mark.text)));
      const offScreen = laid.marks.filter((mark) => mark.left < 0 || mark.right > laid.viewport);
      assert.deepEqual(offScreen, [], `${width} px: marks off screen`);
      // A header row of two or three lines, not a column squeezed to a word a line.
      if (width === 1200) assert.ok(laid.headerHeight < 80, `1200 px: the header row is ${laid.headerHeight} px tall`);
    }
  },
);
