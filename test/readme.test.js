import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { IMPLS } from '../lib/peers/index.js';
import { PRESETS } from '../lib/presets/index.js';
import { freePortsFlag } from './support/ports.js';
import { requirePrograms } from './support/programs.js';

const PROJECT = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(path.join(PROJECT, 'README.md'), 'utf8');
const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cipherbench-readme-')));
after(() => rmSync(root, { recursive: true, force: true }));

// ---- The README says each thing once ----

// Lines outside code: a fenced block, or a line indented four spaces (the
// README indents only code that far), and never a table's separator row.
function proseLines(markdown) {
  let fenced = false;
  return markdown.split('\n').flatMap((text, at) => {
    if (/^\s*```/.test(text)) {
      fenced = !fenced;
      return [];
    }
    if (fenced || /^( {4}|\t)/.test(text) || /^\|?\s*:?-{3,}/.test(text)) return [];
    return [{ line: at + 1, text }];
  });
}

// How a line opens: its first six words, without Markdown's list, heading
// and table marks, case or punctuation. Shorter lines (a heading, the end
// of a sentence) open alike by chance.
const OPENING_WORDS = 6;
function opening(text) {
  const words = text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}._/-]*/gu) ?? [];
  return words.length >= 3 ? words.slice(0, OPENING_WORDS).join(' ') : null;
}

function linesOpeningAlike(markdown) {
  const first = new Map();
  const found = [];
  for (const { line, text } of proseLines(markdown)) {
    const key = opening(text);
    if (key === null) continue;
    if (first.has(key)) found.push(`lines ${first.get(key)} and ${line} both open "${key}"`);
    else first.set(key, line);
  }
  return found;
}

test('no two prose lines of README.md open alike (a line kept twice, or two versions of one)', () => {
  assert.deepEqual(linesOpeningAlike(README), [], 'say it once: keep one of the two lines, or reword one');
});

// What the check must catch: two versions of one line, a table row kept
// twice with another text, a stray line left from a paragraph moved away.
test('the opening check finds a line kept twice, two versions of one, a row listed twice', () => {
  const twoVersions = 'Every chain starts with an address preset, which carries the target\nEvery chain starts with an address preset: `ss-base`, which carries the\n';
  assert.equal(linesOpeningAlike(twoVersions).length, 1);
  const rowTwice = "| row | what |\n|---|---|\n| `{ impl: 'shadowsocks-rust', method }` | `ssserver` and `sslocal`; method aes-128-gcm |\n| `{ impl: 'shadowsocks-rust', method }` | `ssserver` and `sslocal --protocol tunnel` |\n";
  assert.equal(linesOpeningAlike(rowTwice).length, 1);
  const stray = '- `ciphers`: each method, with no\n  sockets: the ceiling a relay can reach. `--chain JSON`\n- `report`: an archived run.\n  sockets: the ceiling a relay can reach.\n';
  assert.equal(linesOpeningAlike(stray).length, 1);
  const code = '```sh\nnpx cipherbench presets\n```\n\n    npx cipherbench presets\n\n|---|---|\n|---|---|\n';
  assert.deepEqual(linesOpeningAlike(code), [], 'code and table separators are not prose');
});

test('the install command is shown once', () => {
  const installs = shellLines().filter((line) => /\bnpm (ci|install)\b/.test(line) && !/blinksocks/.test(line));
  assert.deepEqual(installs, ['npm ci']);
});

// The sample report came from someone's checkout: a path in it must read
// as a placeholder, not as the folder it ran in on that machine.
test('the sample report names no folder of the machine it ran on', () => {
  const sample = /```\n(cipherbench:\n[\s\S]*?)```/.exec(README)[1];
  const paths = [...sample.matchAll(/\((\/[^)\s]+)\)/g)].map(([, file]) => file);
  assert.ok(paths.length > 0, 'the sample shows the cases file it ran');
  for (const file of paths) assert.match(file, /^\/path\/to\//, `${file}: write it as /path/to/...`);
});

// ---- The README's lists are the program's ----

// A table's rows, from its header line to the first line that is not a row.
function tableRows(header) {
  const lines = README.split('\n');
  const start = lines.findIndex((text) => text.startsWith(header));
  assert.ok(start >= 0, `README.md has the table headed ${header}`);
  const rows = [];
  for (const text of lines.slice(start + 2)) {
    if (!text.startsWith('|')) break;
    rows.push(text.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim()));
  }
  return rows;
}
const codeSpans = (text) => [...text.matchAll(/`([^`]+)`/g)].map(([, span]) => span);

test('the presets table names every preset once, and only presets', () => {
  const named = tableRows('| preset |').flatMap(([cell]) => codeSpans(cell));
  assert.deepEqual([...named].sort(), Object.keys(PRESETS).sort());
});

test('the reference rows table names every implementation once, and only those', () => {
  const named = tableRows('| row |').map(([cell]) => /impl: '([^']+)'/.exec(cell)?.[1]);
  assert.deepEqual([...new Set(named)].sort(), [...IMPLS].sort());
  // shadowsocks-libev has two rows: without and with the simple-obfs plugin.
  assert.equal(named.length, IMPLS.length + 1);
});

// ---- Every shell command the README shows ----

// Each line of the README's ```sh blocks (comments dropped), and what this
// file does with it: `run` runs it here, `not` says why it cannot. A line
// the README gains must be added here; one it loses, removed.
const shellLines = () => [...README.matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap(([, block]) => block.split('\n'))
  .map((text) => text.replace(/\s+#.*$/, '').trim())
  .filter(Boolean);

// The CLI as the README runs it, in this checkout: npm and npx resolve
// `cipherbench` to this package's own bin.
const exec = (file, args, options = {}) => new Promise((resolve) => {
  execFile(file, args, { cwd: PROJECT, timeout: 180_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' }, ...options }, (error, stdout, stderr) => {
    resolve({ code: error ? error.code ?? 1 : 0, stdout, stderr });
  });
});
const npx = (args) => exec('npx', ['--offline', 'cipherbench', ...args]);
const words = (line) => line.split(' ');
const archives = (dir) => readdirSync(dir).filter((name) => name.endsWith('.json')).map((name) => path.join(dir, name));

// The archive of the README's first-look run, for `report` and `compare`.
let firstLook = null;
async function smokeRun() {
  if (firstLook) return firstLook;
  const out = mkdtempSync(path.join(root, 'first-look-'));
  const result = await exec('npm', ['run', 'benchmark', '--', '--smoke', '--no-color', '--out', out, ...(await freePortsFlag())]);
  firstLook = { ...result, json: archives(out)[0] };
  return firstLook;
}

// A sample line's shape: the key of a "key   value" line, else the line
// with every figure and unit prefix blanked, so a run on any machine on
// any day matches it.
function shape(text) {
  // Stolen time is named only in a run that had some.
  const line = text.trim().replace(/, [\d.]+%-[\d.]+% stolen\.$/, '.');
  const key = /^(\S+(?: \S+)?)\s{2,}/.exec(line);
  const head = key ? key[1] : line;
  return head.replace(/\d+(\.\d+)?/g, 'N').replace(/\b[KMG]?(bits|Bytes)\b/g, '$1');
}

const COMMANDS = {
  'npm ci': { not: 'installs the dependencies; this checkout has them' },
  'npm run benchmark -- --smoke': {
    programs: ['iperf3'],
    async run() {
      const { code, stdout, stderr } = await smokeRun();
      assert.equal(code, 0, stderr);
      // The sample report on the README's first screen is this command's
      // output, shortened where it says "...": each of its lines must
      // still appear in a real run, or the README shows a report the tool
      // no longer prints.
      const sample = /```\n(cipherbench:\n[\s\S]*?)```/.exec(README);
      assert.ok(sample, 'README.md shows a sample report');
      const real = new Set(stdout.split('\n').map(shape));
      const stale = sample[1].split('\n').filter((line) => line.trim() && line !== '...' && !real.has(shape(line)));
      assert.deepEqual(stale, [], `the README's sample report is stale: paste a fresh \`npm run benchmark -- --smoke\`; a run printed:\n${stdout}`);
    },
  },
  'npm run benchmark': { not: 'the full run takes minutes; its --smoke form runs above' },
  'bash .ci/run': { not: 'installs system packages as root; test/ci-run.test.js runs its checks of what it needs' },
  'npm run benchmark -- benchmark/aead-gap.cases.js': {
    async run(line) {
      const { code, stdout, stderr } = await exec('npm', ['run', ...words(line).slice(2), '--smoke', '--no-ceiling', '--no-archive', '--no-color', ...(await freePortsFlag())]);
      assert.equal(code, 0, `${stderr}\n${stdout}`);
      assert.match(stdout, /^cases +\S*benchmark\/aead-gap\.cases\.js$/m, 'the file given after -- ran');
      assert.match(stdout, /Test Case 0, Bitrate=\[[^\]]+\], ss-base \+ ss-aead-cipher\(aes-256-gcm\)/);
    },
  },
  'npm run -s benchmark -- --json - > r.json': {
    async run() {
      const { code, stdout, stderr } = await exec('npm', ['run', '-s', 'benchmark', '--', '--json', '-', '--smoke', '--no-ceiling', '--no-archive', '--filter', '14', ...(await freePortsFlag())]);
      assert.equal(code, 0, stderr);
      const result = JSON.parse(stdout);
      assert.equal(result.cases.length, 1, 'stdout is the JSON report alone, npm banner and all text elsewhere');
    },
  },
  'npx cipherbench --help': {
    async run(line) {
      const { code, stdout } = await npx(words(line).slice(2));
      assert.equal(code, 0);
      const commands = [...stdout.split('Commands:')[1].matchAll(/^ {2}([\w-]+)/gm)].map(([, name]) => name).filter((name) => name !== 'help');
      const listed = tableRows('| command |').flatMap(([cell]) => codeSpans(cell).map((span) => span.split(' ')[0]));
      assert.deepEqual([...new Set(listed)].sort(), commands.sort(), 'the Commands table lists every command of --help');
    },
  },
  'npx cipherbench run --help': {
    async run(line) {
      const { code, stdout } = await npx(words(line).slice(2));
      assert.equal(code, 0);
      const flags = new Set([...stdout.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map(([, flag]) => flag).filter((flag) => flag !== '--help'));
      const rows = tableRows('| option |');
      const leading = rows.flatMap(([cell]) => codeSpans(cell).map((span) => span.split(' ')[0]));
      const mentioned = new Set(rows.flatMap((row) => codeSpans(row.join(' ')).flatMap((span) => span.match(/--[\w-]+/g) ?? [])));
      assert.deepEqual(leading.filter((flag) => !flags.has(flag)), [], 'every option the README lists exists');
      assert.deepEqual([...flags].filter((flag) => !mentioned.has(flag)), [], 'the options table mentions every option of run --help');
    },
  },
  'npx cipherbench presets': {
    async run(line) {
      const { code, stdout } = await npx(words(line).slice(2));
      assert.equal(code, 0);
      for (const name of Object.keys(PRESETS)) assert.match(stdout, new RegExp(`^${name}( |$)`, 'm'));
    },
  },
  'npx cipherbench ciphers --methods aes-256-gcm,chacha20-ietf-poly1305 --size 16k': {
    async run(line) {
      const { code, stdout, stderr } = await npx(words(line).slice(2));
      assert.equal(code, 0, stderr);
      assert.match(stdout, /aes-256-gcm/);
      assert.match(stdout, /chacha20-ietf-poly1305/);
    },
  },
  'npx cipherbench report reports/YYYY-MM-DD.json --markdown r.md --html r.html': {
    programs: ['iperf3'],
    async run(line) {
      const { json } = await smokeRun();
      const out = mkdtempSync(path.join(root, 'report-'));
      const args = words(line).slice(2).map((word) => ({ 'reports/YYYY-MM-DD.json': json, 'r.md': path.join(out, 'r.md'), 'r.html': path.join(out, 'r.html') })[word] ?? word);
      const { code, stderr } = await npx(args);
      assert.equal(code, 0, stderr);
      assert.ok(statSync(path.join(out, 'r.md')).size > 0 && statSync(path.join(out, 'r.html')).size > 0);
    },
  },
  'npx cipherbench compare reports/OLD.json reports/NEW.json': {
    programs: ['iperf3'],
    async run(line) {
      const { json } = await smokeRun();
      const args = words(line).slice(2).map((word) => (word.startsWith('reports/') ? json : word));
      const { code, stdout, stderr } = await npx(args);
      assert.equal(code, 0, stderr);
      assert.match(stdout, /aes-128-ctr/);
    },
  },
  'npx cipherbench key --method 2022-blake3-aes-256-gcm': {
    async run(line) {
      const { code, stdout } = await npx(words(line).slice(2));
      assert.equal(code, 0);
      assert.equal(Buffer.from(stdout.trim(), 'base64').length, 32);
    },
  },
  'npx cipherbench --smoke': { not: 'outside a clone, from the registry; test/pack.test.js runs it from the packed tarball' },
  'npm pack': { not: 'test/pack.test.js packs the package and installs the tarball' },
  'npx --package /path/to/cipherbench-0.1.0.tgz cipherbench --smoke': { not: 'test/pack.test.js runs the packed tarball\'s cipherbench --smoke' },
};

test('every shell command the README shows is run here, or says why it cannot be', () => {
  const shown = shellLines();
  assert.deepEqual(shown.filter((line) => !Object.hasOwn(COMMANDS, line)), [], 'a command the README shows: add it to COMMANDS');
  assert.deepEqual(Object.keys(COMMANDS).filter((line) => !shown.includes(line)), [], 'a command the README no longer shows: drop it from COMMANDS');
});

for (const [line, { run, not, programs = [] }] of Object.entries(COMMANDS)) {
  if (not) continue;
  test(`README: ${line}`, { timeout: 240_000 }, async (t) => {
    if (!requirePrograms(t, 'npm', 'npx', ...programs)) return;
    await run(line);
  });
}
