import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { validateChain } from '../lib/chain/validate.js';
import preset from '../lib/presets/obfs/http.js';
import { DEFAULT_TEMPLATE, parseTemplate, readTemplate } from '../lib/presets/obfs/http-template.js';
import { isProtocolError } from '../lib/wire/protocol-error.js';
import { blinksocksPreset, requireBlinksocks } from './support/blinksocks-pair.js';
import { assertEverySplit, runStage } from './support/splits.js';
import { CATALOGUE } from '../lib/presets/index.js';

const folder = mkdtempSync(path.join(tmpdir(), 'cipherbench-obfs-http-'));
after(() => rmSync(folder, { recursive: true, force: true }));
const templateFile = (name, text) => {
  const file = path.join(folder, name);
  writeFileSync(file, text);
  return file;
};
const stages = (params = {}) => preset.prepare(params, {})({});
const problems = (params) =>
  validateChain(CATALOGUE, [{ name: 'ss-base' }, { name: 'obfs-http', params }]).map(
    ({ field, message }) => `${field}: ${message}`,
  );

test("known answer: a template's lines end in CRLF and each part in a blank line", () => {
  const pairs = parseTemplate(
    'GET / HTTP/1.1\nHost: a\n------\nHTTP/1.1 200 OK\n======\nPOST /b HTTP/1.1\r\n-----\r\nHTTP/1.1 204 No Content\r\n======\r\n',
  );
  assert.deepEqual(
    pairs.map(({ request, response }) => [request.toString(), response.toString()]),
    [
      ['GET / HTTP/1.1\r\nHost: a\r\n\r\n', 'HTTP/1.1 200 OK\r\n\r\n'],
      ['POST /b HTTP/1.1\r\n\r\n', 'HTTP/1.1 204 No Content\r\n\r\n'],
    ],
  );
});

test('the bytes of every pair equal those blinksocks reads from the same file', (t) => {
  if (!requireBlinksocks(t)) return;
  const files = [
    DEFAULT_TEMPLATE,
    // CR and CRLF line ends, a blank line inside a part, a '-' mark between pairs.
    templateFile(
      'mixed.txt',
      'GET /x HTTP/1.1\r\nA: 1\r\n\r\n------\rHTTP/1.1 200 OK\r-\nGET /y HTTP/1.1\n======\nHTTP/1.1 404 Not Found\n======\n\n',
    ),
  ];
  for (const file of files) {
    const theirs = blinksocksPreset('obfs-http', { role: 'client', params: { file } }).getStore().pairs;
    assert.deepEqual(readTemplate(file), theirs, file);
  }
});

test('a bad template file is refused with a message that says what is wrong', () => {
  const field = 'presets[1].params.file';
  const cases = [
    [{ file: '' }, /^must be the path of a template file/],
    [{ file: 42 }, /^must be the path of a template file/],
    [{ file: path.join(folder, 'absent.txt') }, /^cannot read .*absent\.txt: no such file$/],
    [{ file: folder }, /^cannot read .*: it is a folder$/],
    [{ file: '/dev/zero' }, /^\/dev\/zero is not a regular file \(a device, FIFO or socket\): not a template$/],
    [{ file: templateFile('big.txt', 'x'.repeat(64 * 1024 + 1)) }, /is larger than 65536 bytes: not a template$/],
    [{ file: templateFile('empty.txt', '') }, /no request\/response pair/],
    [{ file: templateFile('odd.txt', 'GET / HTTP/1.1\n------\n') }, /1 parts, but each request needs a response/],
    [
      { file: templateFile('unclosed.txt', 'GET / HTTP/1.1\n------\nHTTP/1.1 200 OK\n') },
      /the last part has no '------' or '======' line after it/,
    ],
    // Every part ends in a blank line, so only a blank line inside a part
    // can make one request start another.
    [
      {
        file: templateFile(
          'prefix.txt',
          'GET / HTTP/1.1\n------\nHTTP/1.1 200 OK\n======\nGET / HTTP/1.1\n\nHost: a\n------\nHTTP/1.1 200 OK\n======\n',
        ),
      },
      /request "GET \/ HTTP\/1.1" is the start of a longer one/,
    ],
  ];
  for (const [params, message] of cases) {
    const [problem, ...more] = problems(params);
    assert.equal(more.length, 0, problem);
    assert.ok(problem.startsWith(`${field}: `), problem);
    assert.match(problem.slice(field.length + 2), message);
  }
  assert.deepEqual(problems({}), [], 'the bundled template by default');
});

test('a template path is read relative to the current folder', () => {
  const file = templateFile('relative.txt', 'GET /r HTTP/1.1\n------\nHTTP/1.1 200 OK\n======\n');
  const relative = path.relative(process.cwd(), file);
  assert.ok(!path.isAbsolute(relative));
  assert.deepEqual(problems({ file: relative }), []);
  const wire = Buffer.concat(runStage(stages({ file: relative }).clientEncode, [Buffer.from('x')]));
  assert.equal(wire.toString(), 'GET /r HTTP/1.1\r\n\r\nx');
});

test("blinksocks' opening request and response are read here at every split, and ours there", (t) => {
  if (!requireBlinksocks(t)) return;
  const data = randomBytes(40);
  // Their client's request (any pair of the bundled template) -> our
  // server, whose response their client reads.
  for (let i = 0; i < 8; i++) {
    const theirClient = blinksocksPreset('obfs-http', { role: 'client', params: { file: DEFAULT_TEMPLATE } });
    const request = theirClient.clientOut({ buffer: data });
    assertEverySplit(assert, request, (pieces) => runStage(stages().serverDecode, pieces), data);
    const ourServer = stages();
    runStage(ourServer.serverDecode, [request]);
    const response = Buffer.concat(runStage(ourServer.serverEncode, [data]));
    assert.deepEqual(theirClient.clientIn({ buffer: response, fail: assert.fail }), data);
  }

  // Our client's request -> their server, whose response our client reads.
  // One pair, so that a fresh client of ours expects the response their
  // server sent to another one.
  const file = templateFile(
    'one-pair.txt',
    'GET /one HTTP/1.1\nHost: example.com\n------\nHTTP/1.1 200 OK\nServer: nginx\n======\n',
  );
  const ourRequest = Buffer.concat(runStage(stages({ file }).clientEncode, [data]));
  assert.equal(ourRequest.subarray(0, -data.length).toString(), 'GET /one HTTP/1.1\r\nHost: example.com\r\n\r\n');
  const theirServer = blinksocksPreset('obfs-http', { role: 'server', params: { file } });
  assert.deepEqual(theirServer.serverIn({ buffer: ourRequest, fail: assert.fail }), data);
  const theirResponse = theirServer.serverOut({ buffer: data });
  assertEverySplit(
    assert,
    theirResponse,
    (pieces) => {
      const client = stages({ file });
      runStage(client.clientEncode, [Buffer.alloc(0)]);
      return runStage(client.clientDecode, pieces);
    },
    data,
  );
});

test('the server refuses a stream that does not open with a template request, as soon as it cannot', () => {
  const refused = (pieces) =>
    assert.throws(
      () => runStage(stages().serverDecode, pieces),
      (error) => isProtocolError(error) && /does not open with an HTTP header/.test(error.message),
    );
  refused([Buffer.from('POST / HTTP/1.1\r\n')]);
  refused([Buffer.from('GET /static/js/app.min.js HTTP/1.0\r\n')]);
  refused([randomBytes(16 * 1024)]);
  // A start that may still become a request waits, holding only that start.
  assert.deepEqual(runStage(stages().serverDecode, [Buffer.from('GET /sta')]), []);
  // The client refuses a response other than the one its request asks for.
  const client = stages();
  runStage(client.clientEncode, [Buffer.alloc(0)]);
  assert.throws(
    () => runStage(client.clientDecode, [Buffer.from('HTTP/1.1 500 Internal Server Error\r\n\r\n')]),
    isProtocolError,
  );
});

// docs/blinksocks.md, "obfs presets".
test('blinksocks 3.3.0 defect: its server needs the whole request in its first read', (t) => {
  if (!requireBlinksocks(t)) return;
  const request = Buffer.concat(runStage(stages().clientEncode, [Buffer.from('data')]));
  const failures = [];
  const theirs = blinksocksPreset('obfs-http', { role: 'server', params: { file: DEFAULT_TEMPLATE } });
  theirs.serverIn({ buffer: request.subarray(0, 20), fail: (message) => failures.push(message) });
  assert.deepEqual(failures, ['http header mismatch']);
  assert.deepEqual(
    Buffer.concat(runStage(stages().serverDecode, [request.subarray(0, 20), request.subarray(20)])).toString(),
    'data',
  );
});

test('blinksocks 3.3.0 defect: a template whose last response has no mark line after it fails at start with a TypeError', (t) => {
  if (!requireBlinksocks(t)) return;
  const file = templateFile('no-final-mark.txt', 'GET / HTTP/1.1\n------\nHTTP/1.1 200 OK\n');
  assert.throws(() => blinksocksPreset('obfs-http', { role: 'server', params: { file } }), TypeError);
  assert.match(problems({ file })[0], /the last part has no '------' or '======' line after it/);
});
