import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { buildHistory } from '../../lib/report/history.js';
import { formatHistoryHtml } from '../../lib/report/history-html.js';
import { formatHistoryText } from '../../lib/report/history-text.js';

// Two smoke runs of one machine whose direct runs moved by +142%: judged
// alone, "the machine changed" or "within noise" (test/cli-history.test.js).
const fixture = (name) => JSON.parse(readFileSync(new URL(`../fixtures/compare/${name}`, import.meta.url), 'utf8'));
const OLD = fixture('smoke-1.json');
const NEW = fixture('smoke-2.json');

function onNode(result, node, openssl = result.environment.node.openssl) {
  const moved = structuredClone(result);
  moved.environment.node = { ...moved.environment.node, node, openssl };
  return moved;
}

const history = (older, newer) =>
  buildHistory(
    [
      { file: 'reports/old.json', result: older },
      { file: 'reports/new.json', result: newer },
    ],
    { threshold: 5 },
  );

test('history marks the point where Node.js or OpenSSL changed instead of judging its change', () => {
  const same = history(OLD, NEW);
  assert.equal(same.machines.length, 1);
  assert.deepEqual(
    same.machines[0].cases.map((series) => series.points[1].change.verdict),
    ['within-noise', 'machine-changed', 'within-noise'],
  );

  const upgraded = history(onNode(OLD, '20.20.2', '3.0.19'), onNode(NEW, '24.11.1', '3.5.4'));
  assert.equal(upgraded.machines.length, 1, 'one series: a Node.js upgrade is what a history is often about');
  for (const series of upgraded.machines[0].cases) {
    const [first, second] = series.points;
    assert.equal(first.change, null);
    assert.equal(second.change.verdict, 'software-changed');
    assert.equal(second.change.regressed, false);
    assert.deepEqual(second.change.changed, ['Node.js 20.20.2 to 24.11.1', 'OpenSSL 3.0.19 to 3.5.4']);
    assert.equal(typeof second.change.deltaPercent, 'number', 'the change is still shown');
  }
  const text = formatHistoryText(upgraded);
  assert.match(text, /\+\d+\.\d% .*not judged: Node\.js 20\.20\.2 to 24\.11\.1, OpenSSL 3\.0\.19 to 3\.5\.4$/m);
  assert.doesNotMatch(text, /the machine changed/);
  assert.match(formatHistoryHtml(upgraded), /not judged: Node\.js 20\.20\.2 to 24\.11\.1, OpenSSL 3\.0\.19 to 3\.5\.4/);

  // iperf3, which loads every case, too; a version an older result lacks is no change.
  const iperf3 = structuredClone(NEW);
  iperf3.environment.iperf3.version = '3.16';
  assert.deepEqual(history(OLD, iperf3).machines[0].cases[1].points[1].change.changed, ['iperf3 3.12 to 3.16']);
  const unknown = structuredClone(OLD);
  delete unknown.environment.node.openssl;
  assert.equal(history(unknown, NEW).machines[0].cases[1].points[1].change.verdict, 'machine-changed');
});
