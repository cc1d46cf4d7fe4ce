import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { formatTextReport } from '../../lib/index.js';
import { formatMarkdownReport } from '../../lib/report/markdown-report.js';
import { freeRunPorts } from '../support/ports.js';
import { assertAllGone } from '../support/process-tree.js';
import { requirePrograms } from '../support/programs.js';
import { runRecording } from '../support/run-recording.js';

// A run that other work takes the CPU from is measured again, and marked
// when it stays disturbed (docs/statistics.md, "What disturbed a run"). Two
// busy loops take a share of the machine's two cores that no quiet machine
// shows. They are started apart from this process (orphaned by the shell
// that starts them): what this process's own tree runs counts as the run's.
const AES_GCM = [{ name: 'ss-base' }, { name: 'ss-aead-cipher', params: { method: 'aes-128-gcm' } }];

function busyLoops(count) {
  const started = execFileSync(
    'sh',
    ['-c', `for i in $(seq ${count}); do sh -c 'while :; do :; done' >/dev/null 2>&1 & echo $!; done`],
    { encoding: 'utf8' },
  );
  const pids = started.trim().split('\n').map(Number);
  const stop = () =>
    pids.forEach((pid) => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    });
  process.once('exit', stop);
  return { pids, stop };
}

test(
  'with busy loops beside it a run is disturbed: measured again, then marked in the result and every report',
  { timeout: 60_000 },
  async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const ports = await freeRunPorts();
    const loops = busyLoops(2);
    let recorded;
    try {
      recorded = await runRecording({ ports, cases: [AES_GCM], remeasure: 1 });
    } finally {
      loops.stop();
    }
    const { result, pids, events } = recorded;
    const [caseResult] = result.cases;
    const [run] = caseResult.runs;
    t.diagnostic(`others: ${run.disturbance.others}, idle: ${run.disturbance.idle}`);
    assert.equal(caseResult.status, 'ok', caseResult.reason);
    assert.equal(caseResult.runs.length, 1, "the run set aside is not one of the case's runs");
    // The loops are not the run's: their CPU is other processes'.
    assert.ok(run.disturbance.others > 0.1, JSON.stringify(run.disturbance));
    assert.equal(run.remeasured.length, 1);
    assert.match(run.remeasured[0].reason, /^other processes took \d+% of the machine's CPU \(limit 10%\)$/);
    assert.ok(run.remeasured[0].wallSeconds > 1, JSON.stringify(run.remeasured));
    // Announced as it happens, for the progress line: a run more than planned.
    assert.deepEqual(
      events
        .filter((event) => event.type === 'case-remeasured')
        .map(({ reason, attempt, attempts, added, budget, position, total }) => ({
          reason,
          attempt,
          attempts,
          added,
          budget,
          position,
          total,
        })),
      [{ reason: run.remeasured[0].reason, attempt: 1, attempts: 1, added: 1, budget: 1, position: 1, total: 1 }],
    );
    assert.match(run.disturbed, /^other processes took \d+% of the machine's CPU \(limit 10%\)$/);
    assert.deepEqual(caseResult.disturbed, { runs: 1, of: 1, reason: run.disturbed });
    assert.equal(result.options.remeasure, 1);
    const text = formatTextReport(result);
    assert.match(text, /\n 1: Case 0, .*, disturbed, /);
    assert.match(
      text,
      /1 of 1 cases were disturbed: other processes took over 10% of the CPU \(or the hypervisor over 5%\) while they measured, even when measured again \(up to 1 times\), so their ranks are not an order\./,
    );
    assert.match(formatMarkdownReport(result), /\*\*disturbed\*\*/);
    assertAllGone(pids);
  },
);

test(
  'with the busy loops gone a run reads what else ran, and no retry is spent on a sound run',
  { timeout: 60_000 },
  async (t) => {
    if (!requirePrograms(t, 'iperf3')) return;
    const ports = await freeRunPorts();
    const { result } = await runRecording({ ports, cases: [AES_GCM], remeasure: 0 });
    const [run] = result.cases[0].runs;
    t.diagnostic(`others: ${run.disturbance.others}, idle: ${run.disturbance.idle}`);
    assert.ok(run.disturbance.others >= 0 && run.disturbance.others <= 1, JSON.stringify(run.disturbance));
    // remeasure 0: marked when disturbed, never measured again.
    assert.equal('remeasured' in run, false);
    assert.equal(result.cases[0].disturbed === null, !run.disturbed);
  },
);
