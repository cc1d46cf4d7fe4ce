import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Writable } from 'node:stream';
import { createProgress } from '../../lib/report/progress.js';

const CLEAR_LINE = '\r\x1b[2K';
const gcm = { index: 0, presets: [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-256-gcm' } }] };
const ctr = {
  index: 3,
  presets: [{ name: 'ss-base' }, { name: 'ss-stream-cipher', params: { method: 'aes-256-ctr' } }],
};

function fakeStream({ isTTY, columns = 80 }) {
  const stream = new Writable({
    write(chunk, encoding, callback) {
      stream.writes.push(String(chunk));
      callback();
    },
  });
  return Object.assign(stream, { isTTY, columns, writes: [] });
}

// What a terminal shows after the writes: the text after the last clear.
const visibleLine = (stream) => stream.writes.join('').split(CLEAR_LINE).at(-1);

test('on a terminal one line is rewritten in place with run, case (numbered as its block), method, elapsed and ETA', async () => {
  const stream = fakeStream({ isTTY: true });
  const progress = createProgress({ stream, total: 3, duration: 3 });
  progress.caseStarted(gcm, 1);
  // Before any case finished: 3 cases of about duration + 1 s each.
  assert.equal(visibleLine(stream), 'run 1/3  Case 0  aes-256-gcm  0:00 elapsed  ETA 0:12');
  assert.ok(stream.writes.every((chunk) => chunk.startsWith(CLEAR_LINE) && !chunk.includes('\n')));

  progress.caseFinished({ ...gcm, status: 'ok', wallSeconds: 10 });
  // The CLI stops the line between cases to print each case block.
  progress.stop();
  assert.equal(stream.writes.at(-1), CLEAR_LINE);
  progress.caseStarted(ctr, 2);
  // Now from the finished case: 2 remaining at 10 s each.
  assert.equal(visibleLine(stream), 'run 2/3  Case 3  aes-256-ctr  0:00 elapsed  ETA 0:20');

  const before = stream.writes.length;
  await sleep(300);
  assert.ok(stream.writes.length > before, 'refreshed while a case runs');

  progress.stop();
  assert.equal(stream.writes.at(-1), CLEAR_LINE);
  const stopped = stream.writes.length;
  progress.stop();
  await sleep(300);
  assert.equal(stream.writes.length, stopped, 'nothing more after stop');
});

test('a chain without a method is shown as JSON cut to the terminal width', () => {
  const stream = fakeStream({ isTTY: true, columns: 80 });
  const progress = createProgress({ stream, total: 12 });
  const longChain = { index: 1, presets: [{ name: 'ss-base' }, { name: 'obfs', params: { key: 'x'.repeat(200) } }] };
  progress.caseStarted(longChain);
  const line = visibleLine(stream);
  assert.equal(line.length, 79);
  assert.ok(line.startsWith('run 1/12  Case 1  [{"name":"ss-base"},'), line);
  assert.ok(line.endsWith('…  0:00 elapsed  ETA --'), line);
  progress.stop();
});

test('without a terminal one plain line per case and nothing rewritten', () => {
  const stream = fakeStream({ isTTY: false });
  const progress = createProgress({ stream, total: 17, duration: 3 });
  progress.caseStarted(gcm, 2);
  progress.caseFinished({ ...gcm, status: 'ok', wallSeconds: 4 });
  progress.caseStarted(ctr);
  progress.stop();
  assert.equal(stream.writes.join(''), '[run 2/17] Case 0  aes-256-gcm ...\n[run 2/17] Case 3  aes-256-ctr ...\n');
});

const DISTURBED = "other processes took 23% of the machine's CPU (limit 10%)";
const remeasured = (attempt, added) => ({
  reason: DISTURBED,
  wallSeconds: 2,
  attempt,
  attempts: 2,
  added,
  budget: 17,
});

test('a disturbed run measured again says so, why, and how many runs that adds', () => {
  const log = fakeStream({ isTTY: false });
  const plain = createProgress({ stream: log, total: 66, duration: 1 });
  plain.caseStarted(gcm, 12);
  plain.caseRemeasured(remeasured(1, 1));
  plain.caseRemeasured(remeasured(2, 2));
  plain.caseFinished({ status: 'ok', wallSeconds: 2 });
  plain.caseStarted(ctr, 13);
  assert.equal(
    log.writes.join(''),
    [
      '[run 12/66] Case 0  aes-256-gcm ...',
      `[run 12/66 (+1 again)] Case 0  aes-256-gcm: ${DISTURBED}, so measured again (1 of at most 2): 1 more run, 1 added so far of at most 17 ...`,
      `[run 12/66 (+2 again)] Case 0  aes-256-gcm: ${DISTURBED}, so measured again (2 of at most 2): 1 more run, 2 added so far of at most 17 ...`,
      '[run 13/66 (+2 again)] Case 3  aes-256-ctr ...',
      '',
    ].join('\n'),
  );

  // On a terminal the live line counts them, and the ETA has a run more
  // to go: 3 runs of 2 s, one of them measured again.
  const tty = fakeStream({ isTTY: true });
  const live = createProgress({ stream: tty, total: 3, duration: 1 });
  live.caseStarted(gcm, 1);
  live.caseRemeasured(remeasured(1, 1));
  assert.equal(visibleLine(tty), 'run 1/3 (+1 again)  Case 0  aes-256-gcm  again 1/2  0:00 elapsed  ETA 0:06');
  live.caseFinished({ status: 'ok', wallSeconds: 2 });
  live.stop();
  live.caseStarted(ctr, 2);
  assert.equal(visibleLine(tty), 'run 2/3 (+1 again)  Case 3  aes-256-ctr  0:00 elapsed  ETA 0:04');
  live.stop();
});

test('positions count up by themselves when not given', () => {
  const stream = fakeStream({ isTTY: false });
  const progress = createProgress({ stream, total: 2 });
  progress.caseStarted(gcm);
  progress.caseStarted(ctr);
  assert.equal(stream.writes.join(''), '[run 1/2] Case 0  aes-256-gcm ...\n[run 2/2] Case 3  aes-256-ctr ...\n');
});

// Neither progress is stopped: their refresh timers are unref'd, so this
// test file still exits on its own.
test('colour only when asked', () => {
  const plain = fakeStream({ isTTY: true });
  const colored = fakeStream({ isTTY: true });
  createProgress({ stream: plain, total: 1 }).caseStarted(gcm);
  createProgress({ stream: colored, total: 1, color: true }).caseStarted(gcm);
  assert.doesNotMatch(plain.writes.join('').replaceAll(CLEAR_LINE, ''), /\x1b/);
  assert.match(colored.writes.join('').replaceAll(CLEAR_LINE, ''), /\x1b\[1mrun 1\/1/);
});

test('rounds and direction show on the line; ceilings get a line of their own', () => {
  const tty = fakeStream({ isTTY: true });
  const live = createProgress({ stream: tty, total: 4, duration: 1 });
  live.ceilingStarted(gcm.presets, 1, 2);
  assert.equal(visibleLine(tty), 'ceiling 1/2  aes-256-gcm');
  live.caseStarted({ ...gcm, direction: 'reverse' }, 3, { round: 1, rounds: 2 });
  assert.equal(visibleLine(tty), 'run 3/4  Case 0  aes-256-gcm reverse  round 2/2  0:00 elapsed  ETA 0:08');
  live.stop();

  const log = fakeStream({ isTTY: false });
  const plain = createProgress({ stream: log, total: 4 });
  plain.ceilingStarted(ctr.presets, 1, 2);
  plain.caseStarted({ ...ctr, direction: 'forward' }, 1, { round: 0, rounds: 2 });
  plain.caseStarted({ ...ctr, direction: 'forward' }, 2, { round: 0, rounds: 1 });
  assert.equal(
    log.writes.join(''),
    '[ceiling 1/2] aes-256-ctr ...\n[run 1/4] Case 3  aes-256-ctr (round 1/2) ...\n[run 2/4] Case 3  aes-256-ctr ...\n',
  );
});

test('the header, the progress line and the case blocks number cases alike', async () => {
  const { createReporter } = await import('../../lib/report/reporter.js');
  const out = { stdout: '', stderr: '' };
  const stream = (name) => ({
    isTTY: false,
    write: (text) => {
      out[name] += text;
    },
  });
  const reporter = await createReporter({ archive: false, stdout: stream('stdout'), stderr: stream('stderr') });
  const result = {
    tool: { name: 'cipherbench', version: '0.1.0' },
    startedAt: '2026-11-25T09:00:00.000Z',
    environment: {
      cpu: { model: 'a cpu', cores: 2, physicalCores: 2, aes: true },
      memory: 2 ** 30,
      os: { type: 'Linux', platform: 'linux', arch: 'x64', release: '6', distro: 'Debian' },
      node: { node: '20.0.0' },
      iperf3: { path: null, version: null },
    },
    options: { casesFile: '/tmp/cases.js', duration: 1, repeat: 2 },
    warnings: [],
    cases: [],
  };
  // Three cases, one of them not installed, two runs each: 4 runs.
  reporter.onEvent({ type: 'run-started', result, total: 4, cases: 3 });
  reporter.onEvent({
    type: 'case-started',
    case: { ...ctr, direction: 'forward' },
    position: 1,
    total: 4,
    round: 0,
    rounds: 2,
  });
  reporter.onEvent({
    type: 'case-remeasured',
    case: { ...ctr, direction: 'forward' },
    ...remeasured(1, 1),
    position: 1,
    total: 4,
    round: 0,
    rounds: 2,
  });
  reporter.stop();
  assert.match(out.stdout, /\n\nrunning 3 cases \(1 not available here\), 2 runs each: 4 runs\.\.\.\n\n$/);
  assert.equal(
    out.stderr,
    '[run 1/4] Case 3  aes-256-ctr (round 1/2) ...\n' +
      `[run 1/4 (+1 again)] Case 3  aes-256-ctr: ${DISTURBED}, so measured again (1 of at most 2): 1 more run, 1 added so far of at most 17 ...\n`,
  );
});
