import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { CATALOGUE } from '../lib/presets/index.js';
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
  const twoVersions =
    'Every chain starts with an address preset, which carries the target\nEvery chain starts with an address preset: `ss-base`, which carries the\n';
  assert.equal(linesOpeningAlike(twoVersions).length, 1);
  const rowTwice =
    "| row | what |\n|---|---|\n| `{ impl: 'shadowsocks-rust', method }` | `ssserver` and `sslocal`; method aes-128-gcm |\n| `{ impl: 'shadowsocks-rust', method }` | `ssserver` and `sslocal --protocol tunnel` |\n";
  assert.equal(linesOpeningAlike(rowTwice).length, 1);
  const stray =
    '- `ciphers`: each method, with no\n  sockets: the ceiling a relay can reach. `--chain JSON`\n- `report`: an archived run.\n  sockets: the ceiling a relay can reach.\n';
  assert.equal(linesOpeningAlike(stray).length, 1);
  const code = '```sh\nnpx cipherbench presets\n```\n\n    npx cipherbench presets\n\n|---|---|\n|---|---|\n';
  assert.deepEqual(linesOpeningAlike(code), [], 'code and table separators are not prose');
});

test('the install command is shown once', () => {
  const installs = shellLines().filter((line) => /\bnpm (ci|install)\b/.test(line) && !/blinksocks/.test(line));
  assert.deepEqual(installs, ['npm ci && npm run benchmark']);
});

// The sample report came from someone's checkout: a path in it must read
// as a placeholder, not as the folder it ran in on that machine.
test('the sample report names no folder of the machine it ran on', () => {
  const sample = /```\n(cipherbench:\n[\s\S]*?)```/.exec(README)[1];
  const paths = [...sample.matchAll(/\((\/[^)\s]+)\)/g)].map(([, file]) => file);
  assert.ok(paths.length > 0, 'the sample shows the cases file it ran');
  for (const file of paths) assert.match(file, /^\/path\/to\//, `${file}: write it as /path/to/...`);
});

// ---- Every shell command the README shows ----

// Each line of the README's ```sh blocks (comments dropped), and what this
// file does with it: `run` runs it here, `not` says why it cannot. A line
// the README gains must be added here; one it loses, removed.
const shellLines = () =>
  [...README.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap(([, block]) => block.split('\n'))
    .map((text) => text.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);

// The CLI as the README runs it, in this checkout: npm and npx resolve
// `cipherbench` to this package's own bin.
const exec = (file, args, options = {}) =>
  new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd: PROJECT,
        timeout: 180_000,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, NO_COLOR: '1' },
        ...options,
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? (error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
const npx = (args) => exec('npx', ['--offline', 'cipherbench', ...args]);
const words = (line) => line.split(' ');
const archives = (dir) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => path.join(dir, name));

// The archive of the README's first-look run, for `report` and `compare`.
let firstLook = null;
async function smokeRun() {
  if (firstLook) return firstLook;
  const out = mkdtempSync(path.join(root, 'first-look-'));
  const result = await exec('npm', [
    'run',
    'benchmark',
    '--',
    '--smoke',
    '--no-color',
    '--out',
    out,
    ...(await freePortsFlag()),
  ]);
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

// The sample report on the README's first screen is the output of
// `npm run benchmark -- --smoke`, shortened where it says "...": each of
// its lines must still appear in a real run, or the README shows a report
// the tool no longer prints.
test("the README's sample report is what npm run benchmark -- --smoke prints", { timeout: 240_000 }, async (t) => {
  if (!requirePrograms(t, 'npm', 'iperf3')) return;
  assert.match(README, /That is `npm run benchmark -- --smoke`/, 'the README says which command printed its sample');
  const { code, stdout, stderr } = await smokeRun();
  assert.equal(code, 0, stderr);
  const sample = /```\n(cipherbench:\n[\s\S]*?)```/.exec(README);
  assert.ok(sample, 'README.md shows a sample report');
  const real = new Set(stdout.split('\n').map(shape));
  const stale = sample[1].split('\n').filter((line) => line.trim() && line !== '...' && !real.has(shape(line)));
  assert.deepEqual(
    stale,
    [],
    `the README's sample report is stale: paste a fresh \`npm run benchmark -- --smoke\`; a run printed:\n${stdout}`,
  );
});

// The options the README's "Common options" lists: every --flag in the
// code spans of its list's items.
function commonOptions() {
  const section = /^## Common options\n([\s\S]*?)^## /m.exec(README);
  assert.ok(section, 'README.md has a "Common options" section');
  const items = section[1].split('\n').filter(
    (text, at, lines) =>
      /^- /.test(text) ||
      (/^ {2}\S/.test(text) &&
        lines
          .slice(0, at)
          .reverse()
          .find((above) => !/^ {2}\S/.test(above))
          ?.startsWith('- ')),
  );
  return codeSpans(items.join('\n')).flatMap((span) => span.match(/--[\w-]+/g) ?? []);
}
const codeSpans = (text) => [...text.matchAll(/`([^`]+)`/g)].map(([, span]) => span);

const COMMANDS = {
  'npm ci && npm run benchmark': {
    not: "installs the dependencies (this checkout has them), then the full run, minutes long; the sample report's test runs its --smoke form",
  },
  'bash .ci/run': { not: 'installs system packages as root; test/ci-run.test.js runs its checks of what it needs' },
  'go install github.com/xtls/xray-core/main@v1.260327.0 && mv ~/go/bin/main ~/go/bin/xray': {
    not: '.ci/run builds the same pinned version into its cache (the versions are checked below)',
  },
  'go install -tags with_quic,with_utls github.com/sagernet/sing-box/cmd/sing-box@v1.14.1': {
    not: '.ci/run builds the same pinned version into its cache (the versions are checked below)',
  },
  'npm run benchmark -- benchmark/cases/aead-gap.cases.js': {
    async run(line) {
      const { code, stdout, stderr } = await exec('npm', [
        'run',
        ...words(line).slice(2),
        '--smoke',
        '--no-ceiling',
        '--no-archive',
        '--no-color',
        ...(await freePortsFlag()),
      ]);
      assert.equal(code, 0, `${stderr}\n${stdout}`);
      assert.match(stdout, /^cases +\S*benchmark\/cases\/aead-gap\.cases\.js$/m, 'the file given after -- ran');
      assert.match(stdout, /Case 0, Bitrate=\[[^\]]+\], ss-base \+ ss-aead-cipher\(aes-256-gcm\)/);
    },
  },
  'npm run -s benchmark -- --json - > r.json': {
    async run() {
      const { code, stdout, stderr } = await exec('npm', [
        'run',
        '-s',
        'benchmark',
        '--',
        '--json',
        '-',
        '--smoke',
        '--no-ceiling',
        '--no-archive',
        '--filter',
        '14',
        ...(await freePortsFlag()),
      ]);
      assert.equal(code, 0, stderr);
      const result = JSON.parse(stdout);
      assert.equal(result.cases.length, 1, 'stdout is the JSON report alone, npm banner and all text elsewhere');
    },
  },
  // --help lists every option; the README only the common ones, and each
  // of those must be one --help lists.
  'npx cipherbench run --help': {
    async run(line) {
      const { code, stdout } = await npx(words(line).slice(2));
      assert.equal(code, 0);
      const flags = new Set([...stdout.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map(([, flag]) => flag));
      const listed = commonOptions();
      assert.ok(listed.length >= 10, `the README lists the common options: ${listed}`);
      assert.deepEqual(
        listed.filter((flag) => !flags.has(flag)),
        [],
        'every option the README lists is one of run --help',
      );
    },
  },
  'npx cipherbench presets': {
    async run(line) {
      const { code, stdout } = await npx(words(line).slice(2));
      assert.equal(code, 0);
      for (const name of CATALOGUE.names) assert.match(stdout, new RegExp(`^${name}( |$)`, 'm'));
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
  'npx cipherbench report reports/YYYY-MM-DD-HHMMSSZ.json --markdown r.md --html r.html': {
    programs: ['iperf3'],
    async run(line) {
      const { json } = await smokeRun();
      const out = mkdtempSync(path.join(root, 'report-'));
      const args = words(line)
        .slice(2)
        .map(
          (word) =>
            ({
              'reports/YYYY-MM-DD-HHMMSSZ.json': json,
              'r.md': path.join(out, 'r.md'),
              'r.html': path.join(out, 'r.html'),
            })[word] ?? word,
        );
      const { code, stderr } = await npx(args);
      assert.equal(code, 0, stderr);
      assert.ok(statSync(path.join(out, 'r.md')).size > 0 && statSync(path.join(out, 'r.html')).size > 0);
    },
  },
  'npx cipherbench compare reports/OLD.json reports/NEW.json': {
    programs: ['iperf3'],
    async run(line) {
      const { json } = await smokeRun();
      const args = words(line)
        .slice(2)
        .map((word) => (word.startsWith('reports/') ? json : word));
      const { code, stdout, stderr } = await npx(args);
      assert.equal(code, 0, stderr);
      assert.match(stdout, /aes-128-ctr/);
    },
  },
  'npx cipherbench requests --smoke': {
    async run(line) {
      const { code, stdout, stderr } = await npx([
        ...words(line).slice(2),
        '--no-ceiling',
        '--no-archive',
        '--no-color',
        ...(await freePortsFlag()),
      ]);
      assert.equal(code, 0, `${stderr}\n${stdout}`);
      assert.match(stdout, /^engine +(wrk|node)\b/m, 'the header names the load generator');
      assert.match(
        stdout,
        /^Requests +\d+ ok in [\d.]+ s, \d+ req\/s, tunnel/m,
        'each case gives its requests per second',
      );
      assert.match(stdout, /ranked by requests per second/, 'the ranking is by requests per second');
    },
  },
  'npx cipherbench run --udp --rate 100M --smoke': {
    programs: ['iperf3'],
    async run(line) {
      const { code, stdout, stderr } = await npx([
        ...words(line).slice(2),
        '--no-ceiling',
        '--no-archive',
        '--no-color',
        ...(await freePortsFlag()),
      ]);
      assert.equal(code, 0, `${stderr}\n${stdout}`);
      assert.match(
        stdout,
        /^udp +offered +datagram +lost +jitter +out of order$/m,
        'each case gives loss, jitter and out-of-order datagrams',
      );
      assert.match(stdout, /^ +100 Mbits\/sec +1200 B +[\d.]+% \(\d+ of \d+\)/m, 'at the offered --rate');
    },
  },
  'npx cipherbench --smoke': {
    not: 'outside a clone, from the registry; test/pack.test.js runs it from the packed tarball',
  },
};

test('every shell command the README shows is run here, or says why it cannot be', () => {
  const shown = shellLines();
  assert.deepEqual(
    shown.filter((line) => !Object.hasOwn(COMMANDS, line)),
    [],
    'a command the README shows: add it to COMMANDS',
  );
  assert.deepEqual(
    Object.keys(COMMANDS).filter((line) => !shown.includes(line)),
    [],
    'a command the README no longer shows: drop it from COMMANDS',
  );
});

for (const [line, { run, not, programs = [] }] of Object.entries(COMMANDS)) {
  if (not) continue;
  test(`README: ${line}`, { timeout: 240_000 }, async (t) => {
    if (!requirePrograms(t, 'npm', 'npx', ...programs)) return;
    await run(line);
  });
}

// The Xray and sing-box a user builds from the README are the ones CI
// proves the wire against and the peers' install hints name.
test('the README, .ci/run and the peers name the same Xray and sing-box versions', async () => {
  const script = readFileSync(path.join(PROJECT, '.ci', 'run'), 'utf8');
  const { default: xray } = await import('../lib/peers/xray.js');
  const { default: singBox } = await import('../lib/peers/sing-box.js');
  const pinned = {
    xray: /^XRAY_VERSION=(v[\d.]+)$/m.exec(script)?.[1],
    'sing-box': /^SING_BOX_VERSION=(v[\d.]+)$/m.exec(script)?.[1],
  };
  assert.ok(pinned.xray && pinned['sing-box'], '.ci/run pins both');
  assert.ok(README.includes(`xray-core/main@${pinned.xray}`), 'README names Xray ' + pinned.xray);
  assert.ok(
    README.includes(`sing-box/cmd/sing-box@${pinned['sing-box']}`),
    'README names sing-box ' + pinned['sing-box'],
  );
  assert.ok(xray.hint.includes(`@${pinned.xray}`), xray.hint);
  assert.ok(singBox.hint.includes(`@${pinned['sing-box']}`), singBox.hint);
});
