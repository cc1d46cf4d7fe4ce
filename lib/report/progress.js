// @ts-check
import { Chalk } from 'chalk';

// A run takes minutes, so a person at a terminal sees one live line: which
// run of how many (and how many disturbed runs were measured again, beyond
// them), which case, what it measures, how long so far and how long to go. A log file (no
// TTY) gets one line per case instead, since rewriting a line only garbles it.
// Nothing here goes to stdout, which carries the report.
const CLEAR_LINE = '\r\x1b[2K';
const REFRESH_MS = 250;

export function createProgress({ stream = process.stderr, total, isTTY = stream.isTTY, color = false, duration }) {
  const line = {
    stream,
    isTTY,
    duration,
    total,
    paint: new Chalk({ level: color ? 1 : 0 }),
    runStartedAt: Date.now(),
    finishedWallSeconds: [],
    started: 0,
    current: null,
    timer: null,
    lineShown: false,
    // With the stopping rule: the widest interval after the last round.
    widest: '',
    // Disturbed runs measured again so far: runs more than `total`.
    again: 0,
  };
  return {
    caseStarted: (caseInfo, position, options) => caseStarted(line, caseInfo, position, options),
    caseRemeasured: (remeasured) => caseRemeasured(line, remeasured),
    // After each round: the widest interval so far (a share of its median),
    // what the stopping rule waits on.
    roundFinished(widestInterval) {
      line.widest = widestInterval ? `widest ±${(widestInterval.width * 50).toFixed(1)}%` : '';
    },
    noiseFloorStarted: (runs) => noiseFloorStarted(line, runs),
    ceilingStarted: (presets, position, count) => ceilingStarted(line, presets, position, count),
    // Takes what finished: a case, or one run of it; only its wallSeconds counts.
    caseFinished(caseResult) {
      const measured = line.current ? (Date.now() - line.current.startedAt) / 1000 : 0;
      line.finishedWallSeconds.push(typeof caseResult.wallSeconds === 'number' ? caseResult.wallSeconds : measured);
      line.current = null;
    },
    // Safe to call between cases, so other output can land on a clean line;
    // the next caseStarted draws the line again.
    stop() {
      clearInterval(line.timer);
      line.timer = null;
      line.current = null;
      if (line.lineShown) line.stream.write(CLEAR_LINE);
      line.lineShown = false;
    },
  };
}

const runCounter = (line, position) =>
  `run ${position}/${line.total}${line.again > 0 ? ` (+${line.again} again)` : ''}`;

// Before any case has finished, the best guess is iperf3's duration plus
// about a second of relay start and teardown per case.
function etaSeconds({ finishedWallSeconds, duration, current, total, again }) {
  const perCase =
    finishedWallSeconds.length > 0
      ? finishedWallSeconds.reduce((sum, seconds) => sum + seconds, 0) / finishedWallSeconds.length
      : duration == null
        ? null
        : duration + 1;
  if (perCase === null) return null;
  const spentOnCurrent = current ? (Date.now() - current.startedAt) / 1000 : 0;
  return Math.max(0, perCase * (total + again - finishedWallSeconds.length) - spentOnCurrent);
}

function render(line) {
  const { current, stream, paint } = line;
  if (!current) return;
  const eta = etaSeconds(line);
  const counter = runCounter(line, current.position);
  const times = `${clock((Date.now() - line.runStartedAt) / 1000)} elapsed  ETA ${eta === null ? '--' : clock(eta)}`;
  const step = [current.round, current.again, line.widest].filter(Boolean).join('  ');
  // The last column stays empty: writing into it makes some terminals wrap.
  const room = (stream.columns || 80) - 1 - counter.length - times.length - 4 - (step ? step.length + 2 : 0);
  const label = truncate(current.label, room);
  const parts = [paint.bold(counter), label, step, paint.dim(times)].filter(Boolean);
  stream.write(`${CLEAR_LINE}${parts.join('  ')}`);
  line.lineShown = true;
}

// With rounds each run of a case is a step of its own: `round` (from 0)
// of `rounds` is shown once there is more than one; with the stopping
// rule (rounds null) the round alone, and `runs`, the runs planned so far,
// grows as rounds are added.
function caseStarted(line, caseInfo, position = line.started + 1, { round = 0, rounds = 1, runs = line.total } = {}) {
  line.started += 1;
  line.total = runs;
  // Named as its block and the ranking name it ('Case 3'); the
  // counter counts runs, which rounds multiply and a case whose
  // implementation is missing has none of.
  const name = caseInfo.impl ? caseInfo.label : chainLabel(caseInfo.presets);
  const via = caseInfo.inbound ? `${name} via ${caseInfo.inbound}` : name;
  const label = `Case ${caseInfo.index}  ${caseInfo.direction === 'reverse' ? `${via} reverse` : via}`;
  const step = rounds === null ? `round ${round + 1}` : rounds > 1 ? `round ${round + 1}/${rounds}` : null;
  line.current = { position, label, round: step, startedAt: Date.now() };
  if (!line.isTTY) {
    const { current, widest } = line;
    line.stream.write(
      `${line.paint.bold(`[${runCounter(line, position)}]`)} ${current.label}${current.round ? ` (${current.round}${widest ? `, ${widest}` : ''})` : ''} ...\n`,
    );
    return;
  }
  line.timer ??= setInterval(() => render(line), REFRESH_MS).unref();
  render(line);
}

// A disturbed run set aside, to be measured again at once: a run more than
// planned. `attempt` of `attempts` for this run, `added` of `budget` for the
// whole run (case-remeasured in docs/result.md).
function caseRemeasured(line, { reason, wallSeconds, attempt, attempts, added, budget }) {
  const { current } = line;
  const measured = current ? (Date.now() - current.startedAt) / 1000 : 0;
  line.finishedWallSeconds.push(typeof wallSeconds === 'number' ? wallSeconds : measured);
  line.again = added;
  if (!current) return;
  current.startedAt = Date.now();
  current.again = `again ${attempt}/${attempts}`;
  if (!line.isTTY) {
    line.stream.write(
      `${line.paint.bold(`[${runCounter(line, current.position)}]`)} ${current.label}: ${reason}, so measured again (${attempt} of at most ${attempts}): 1 more run, ${added} added so far of at most ${budget} ...\n`,
    );
    return;
  }
  render(line);
}

// The noise floor's direct runs come before the first case, after the ceilings.
function noiseFloorStarted(line, runs) {
  const text = `noise floor: ${runs} direct runs of 1 s ...`;
  if (!line.isTTY) {
    line.stream.write(`${text}\n`);
    return;
  }
  line.stream.write(`${CLEAR_LINE}${text}`);
  line.lineShown = true;
}

// The cipher ceilings come before the first case; they are short, so the
// line names the chain and no ETA.
function ceilingStarted(line, presets, position, count) {
  const { stream, paint } = line;
  const counter = `ceiling ${position}/${count}`;
  if (!line.isTTY) {
    stream.write(`${paint.bold(`[${counter}]`)} ${chainLabel(presets)} ...\n`);
    return;
  }
  const label = truncate(chainLabel(presets), (stream.columns || 80) - 1 - counter.length - 2);
  stream.write(`${CLEAR_LINE}${paint.bold(counter)}  ${label}`);
  line.lineShown = true;
}

// The same live line for work that is a known number of like steps (the
// `ciphers` command's warm-ups and rounds): which step of how many, what it
// measures, how long so far and how long to go, from the steps done. On a
// terminal only: a log gets the table at the end.
export function createStepProgress({ stream = process.stderr, total, isTTY = stream.isTTY, color = false }) {
  const paint = new Chalk({ level: color ? 1 : 0 });
  const startedAt = Date.now();
  let done = 0;
  let lineShown = false;
  return {
    step(label) {
      done += 1;
      if (!isTTY) return;
      const elapsed = (Date.now() - startedAt) / 1000;
      const eta = done > 1 ? (elapsed / (done - 1)) * (total - done + 1) : null;
      const counter = `step ${done}/${total}`;
      const times = `${clock(elapsed)} elapsed  ETA ${eta === null ? '--' : clock(eta)}`;
      const room = (stream.columns || 80) - 1 - counter.length - times.length - 4;
      stream.write(`${CLEAR_LINE}${[paint.bold(counter), truncate(label, room), paint.dim(times)].join('  ')}`);
      lineShown = true;
    },
    stop() {
      if (lineShown) stream.write(CLEAR_LINE);
      lineShown = false;
    },
  };
}

// A person knows a chain by its cipher method; a chain without one is shown
// as its JSON, as in the report. A reference row goes by its label.
function chainLabel(presets) {
  const methods = presets.map((preset) => preset.params?.method).filter(Boolean);
  return methods.length > 0 ? methods.join('+') : JSON.stringify(presets);
}

function truncate(text, room) {
  if (room <= 0) return '';
  return text.length <= room ? text : `${text.slice(0, room - 1)}…`;
}

function clock(seconds) {
  const whole = Math.round(seconds);
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}
