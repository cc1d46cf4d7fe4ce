// docs/result.md says what each field of the result and of an event
// means; lib/contracts.js holds the same shapes as types that tsc checks.
// Here the two name the same fields, so neither drifts alone.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { caseIdentity, IMPLS } from '../../lib/peers/index.js';
import { RESULT_VERSION, upgradeResult } from '../../lib/result.js';
import { RUN_OPTIONS } from '../../lib/runner/run-options.js';
import { WORKLOADS } from '../../lib/workload/index.js';

const DOC = readFileSync(new URL('../../docs/result.md', import.meta.url), 'utf8');
const CONTRACTS = readFileSync(new URL('../../lib/contracts.js', import.meta.url), 'utf8');

// The text from `open` (at `from`) to its matching close.
function balanced(text, from, open = '{', close = '}') {
  let depth = 0;
  for (let at = from; at < text.length; at += 1) {
    if (text[at] === open) depth += 1;
    else if (text[at] === close && (depth -= 1) === 0) return text.slice(from, at + 1);
  }
  throw new Error(`no ${close} closes the ${open} at ${from}`);
}

// The keys of an object literal's outermost level, whether written
// `key: value` or shorthand `key`, with comments and strings dropped.
function topKeys(literal) {
  let body = literal
    .replace(/\s\/\/.*$/gm, '')
    .replace(/'(?:[^'\\\n]|\\.)*'/g, "''")
    .trim()
    .slice(1, -1);
  // Innermost first, until no nested object or array is left.
  while (/[{[]/.test(body)) body = body.replace(/\{[^{}]*\}|\[[^[\]]*\]/g, '0');
  return body
    .split(',')
    .map((part) => /^\s*\[?(\w+)\]?\??\s*(?::|$)/.exec(part)?.[1])
    .filter(Boolean);
}

// The first ```js block after a heading of docs/result.md, from `start`
// (a line that opens the object) to its close.
function documented(heading, start) {
  const section = DOC.slice(DOC.indexOf(`\n${heading}\n`));
  const block = section.slice(section.indexOf('```js'));
  const at = block.indexOf(start);
  assert.ok(at >= 0 && at < block.indexOf('```', 5), `${start} opens the first block under ${heading}`);
  return new Set(topKeys(balanced(block, at + start.length - 1)));
}

// The fields of a typedef of lib/contracts.js: an object type's
// @property lines, an object literal type's keys, or an intersection's
// members' fields together; with `required`, only the @property lines that
// are not [optional].
function typed(name, { required = false } = {}) {
  const match = new RegExp(`@typedef \\{(\\{?)[^\\n]*?\\}?\\} ${name}\\b`).exec(CONTRACTS);
  assert.ok(match, `lib/contracts.js has a typedef ${name}`);
  const type = balanced(CONTRACTS, match.index + '@typedef '.length);
  if (type.startsWith('{{')) return new Set(topKeys(type.slice(1, -1)));
  const intersection = /^\{(\w+(?: & \w+)*)(?: & (\{.*\}))?\}$/.exec(type);
  if (intersection && intersection[1].includes(' & ')) {
    const members = intersection[1].split(' & ').flatMap((member) => [...typed(member, { required })]);
    return new Set([...members, ...(intersection[2] ? topKeys(intersection[2]) : [])]);
  }
  const comment = CONTRACTS.slice(match.index, CONTRACTS.indexOf('*/', match.index));
  const properties = [...comment.matchAll(/@property /g)].map(({ index }) => {
    const propertyType = balanced(comment, index + '@property '.length);
    const [, optional, field] = /^\s*(\[?)(\w+)/.exec(comment.slice(index + '@property '.length + propertyType.length));
    return { field, optional: optional === '[' };
  });
  return new Set(properties.filter(({ optional }) => !required || !optional).map(({ field }) => field));
}

const sorted = (set) => [...set].sort();

test('docs/result.md and lib/result.js name the same version', () => {
  assert.match(
    DOC,
    new RegExp(`This is version \\*\\*${RESULT_VERSION}\\*\\* of the shape \\(\`resultVersion: ${RESULT_VERSION}\`\\)`),
  );
  assert.match(DOC, new RegExp(`^  resultVersion: ${RESULT_VERSION},`, 'm'));
});

test('the run: the typedef has the fields docs/result.md documents, and so has its environment', () => {
  assert.deepEqual(sorted(typed('Result')), sorted(documented('## The run', '{')));
  assert.deepEqual(sorted(typed('Environment')), sorted(documented('## The run', 'environment: {')));
});

test("options: docs/result.md's, the typedef's and the run options table's recorded ones are the same", () => {
  const recorded = RUN_OPTIONS.filter((option) => option.read && option.record !== false).map(({ name }) => name);
  assert.deepEqual(sorted(typed('RecordedOptions')), sorted(documented('## options', 'options: {')));
  // run() records where the cases came from beside the table's entries.
  assert.deepEqual(sorted(typed('RecordedOptions')), sorted([...recorded, 'casesFile', 'casesSource']));
});

test("a case: the typedef has docs/result.md's fields, and a reference row's or an inbound's identity", () => {
  // "Reference rows" and "requests" say these in prose: impl and label in
  // place of presets; inbound beside either.
  const identity = ['impl', 'label', 'inbound'];
  assert.deepEqual(sorted(typed('CaseResult')), sorted([...documented('## A case', '{'), ...identity]));
  assert.deepEqual(sorted(typed('CaseCost')), sorted(documented('## A case', 'cost: {')));
});

test('a run of a case, and the request figures: the typedefs have the fields docs/result.md documents', () => {
  // A request run has `requests` in place of sender and receiver (prose, "requests").
  assert.deepEqual(sorted(typed('CaseRun')), sorted([...documented('## A run of a case', '  {'), 'requests']));
  assert.deepEqual(sorted(typed('RequestsSummary')), sorted(documented('### requests', 'requests: {')));
});

test('events: every event docs/result.md lists is a typedef with the same fields, and no other', () => {
  const section = DOC.slice(DOC.indexOf('\n## Events\n'));
  const block = section.slice(section.indexOf('```js'), section.indexOf('```', section.indexOf('```js') + 5));
  const events = [...block.matchAll(/^\{ type: '([\w-]+)'.*\}/gm)].map(([line, type]) => ({
    type,
    fields: topKeys(line),
  }));
  assert.ok(events.length >= 8, `only ${events.length} events read from docs/result.md`);
  const typeName = (type) => type.replace(/(^|-)(\w)/g, (_, dash, letter) => letter.toUpperCase());
  for (const { type, fields } of events) assert.deepEqual(sorted(typed(typeName(type))), sorted(fields), type);
  const union = /@typedef \{([^}]*)\} RunEvent/
    .exec(CONTRACTS)[1]
    .split('|')
    .map((name) => name.trim());
  assert.deepEqual(sorted(union), sorted(events.map(({ type }) => typeName(type))));
});

// Real runs, archived by this and earlier versions: what every reader gets
// from one through upgradeResult is what the contract says a result is.
const ARCHIVED = [
  ...['../../docs/figures/', '../fixtures/compare/'].flatMap((folder) =>
    readdirSync(new URL(folder, import.meta.url))
      .filter((name) => name.endsWith('.json'))
      .map((name) => [name, new URL(`${folder}${name}`, import.meta.url)]),
  ),
  ['result-v2.json', new URL('../fixtures/result-v2.json', import.meta.url)],
].map(([name, url]) => [name, JSON.parse(readFileSync(url, 'utf8'))]);

// What a workload's runs and cases write under its own field (its
// `figures`) is the workload's: the contract types the case fields beside
// them.
const OWN_FIELDS = new Set(WORKLOADS.flatMap(({ figures }) => (figures ? [figures.field] : [])));

test('a real result, upgraded, has the fields of the Result typedef, a workload of lib/workload it names, and cases with every field a case must have', () => {
  const workloads = WORKLOADS.map(({ name }) => name);
  assert.equal(new Set(workloads).size, workloads.length, `workload names: ${workloads.join(', ')}`);
  const caseFields = typed('CaseResult', { required: true });
  for (const [name, archived] of ARCHIVED) {
    const result = upgradeResult(archived);
    assert.deepEqual(sorted(Object.keys(result)), sorted(typed('Result')), name);
    assert.ok(workloads.includes(result.workload), `${name}: workload ${result.workload}`);
    for (const caseResult of result.cases) {
      const missing = [...caseFields].filter((field) => !(field in caseResult));
      assert.deepEqual(missing, [], `${name} case ${caseResult.index}`);
    }
  }
  // The archive holds a run of each workload, so each name is checked on one.
  assert.deepEqual(
    sorted(new Set(ARCHIVED.map(([, archived]) => upgradeResult(archived).workload))),
    sorted(workloads),
  );
});

// Every field a real result writes where the contract types it, and every
// field the contract says is always there: a field written but left out of
// lib/contracts.js (as environment.wrk once was) fails here, and so does a
// required one the runner stopped writing.
function assertShape(value, typeName, where, { own = new Set() } = {}) {
  if (value === null || value === undefined) return;
  const fields = new Set([...typed(typeName), ...own]);
  const written = Object.keys(value);
  assert.deepEqual(
    written.filter((field) => !fields.has(field)),
    [],
    `${where}: written but not in the ${typeName} typedef`,
  );
  assert.deepEqual(
    [...typed(typeName, { required: true })].filter((field) => !written.includes(field)),
    [],
    `${where}: in the ${typeName} typedef but not written`,
  );
}

// A reference row's case also carries the fields its row gave, which its
// implementation names (caseIdentity, lib/peers/index.js), such as
// Xray's transport: no field of the contract's CaseResult shares a name
// with one (test/unit/runner-case-ledger.test.js).
const identityFields = (caseResult) =>
  IMPLS.includes(caseResult.impl)
    ? Object.keys(caseIdentity(caseResult)).filter((field) => !typed('CaseResult').has(field))
    : [];

test('a real result, upgraded, writes only the fields the contract names, at every level it types, and every field it requires', () => {
  for (const [name, archived] of ARCHIVED) {
    const result = upgradeResult(archived);
    assertShape(result.environment, 'Environment', `${name} environment`);
    assertShape(result.options, 'RecordedOptions', `${name} options`);
    assertShape(result.noiseFloor, 'NoiseFloor', `${name} noiseFloor`);
    for (const caseResult of result.cases) {
      const where = `${name} case ${caseResult.index}`;
      const extra = new Set(identityFields(caseResult));
      assertShape(
        Object.fromEntries(Object.entries(caseResult).filter(([field]) => !extra.has(field))),
        'CaseResult',
        where,
        { own: OWN_FIELDS },
      );
      for (const side of ['sender', 'receiver']) assertShape(caseResult[side], 'SideSummary', `${where} ${side}`);
      assertShape(caseResult.cost, 'CaseCost', `${where} cost`);
      assertShape(caseResult.ceiling, 'CaseCeiling', `${where} ceiling`);
      assertShape(caseResult.requests, 'RequestsSummary', `${where} requests`);
      assertShape(caseResult.relative, 'Relative', `${where} relative`);
      for (const figures of Object.values(caseResult.latency ?? {}))
        assertShape(figures, 'LatencyFigures', `${where} latency`);
      caseResult.runs.forEach((run, at) => {
        assertShape(run, 'CaseRun', `${where} run ${at}`, { own: OWN_FIELDS });
        for (const side of ['sender', 'receiver']) assertShape(run[side], 'Side', `${where} run ${at} ${side}`);
        for (const role of ['client', 'server'])
          assertShape(run.cost?.[role], 'ProcessCost', `${where} run ${at} cost`);
      });
    }
  }
});
