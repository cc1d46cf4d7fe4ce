import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { CLI } from '../../lib/process/cli-path.js';
import { topFunctions } from '../../lib/profile/cpu-profile.js';

// Our relay server's real `node --cpu-prof` profile while it carried
// aes-256-gcm (test/fixtures/profile/README.md), its checkout's folder put
// back as this one's, as the profile of a run from here would hold it.
const ROOT = pathToFileURL(path.dirname(path.dirname(CLI))).href;
const captured = () =>
  JSON.parse(
    readFileSync(
      new URL('../fixtures/profile/relay-server-aes-256-gcm.cpuprofile.json', import.meta.url),
      'utf8',
    ).replaceAll('file:///CIPHERBENCH', ROOT),
  );

// 72% of the relay's time was (idle), waiting on its sockets: the
// shares are of the time it was busy.
test("a relay's profile: the six functions with the most self time, as shares of its busy time", () => {
  const top = topFunctions(captured());
  assert.deepEqual(
    top.map((row) => [row.function, row.where]),
    [
      ['writev', ''],
      ['update', 'node:internal/crypto/cipher:173'],
      ['(garbage collector)', ''],
      ['createCipherBase', 'node:internal/crypto/cipher:115'],
      ['_copyActual', 'node:buffer:241'],
      ['(program)', ''],
    ],
  );
  assert.deepEqual(
    top.map((row) => row.selfShare.toFixed(3)),
    ['0.227', '0.135', '0.122', '0.046', '0.030', '0.027'],
  );
});

// One name in two files is two functions (lib/crypto/short-records.js and
// lib/wire/aead-chunks.js each have an open()); ours are named from the
// package root, a dependency's by its file name.
test("a relay's profile: a function is its name and place, ours named from the package root", () => {
  const top = topFunctions(captured(), 400);
  const places = top.map((row) => `${row.function} ${row.where}`);
  assert.ok(places.includes('open lib/crypto/short-records.js:110'), places.join('\n'));
  assert.ok(places.includes('open lib/wire/aead-chunks.js:85'), places.join('\n'));
  assert.ok(!places.some((place) => place.includes('file://')), 'no file URL left whole');
  assert.ok(!places.some((place) => place.startsWith('(idle)')), 'idle time is not a function');
  const total = top.reduce((sum, row) => sum + row.selfShare, 0);
  assert.ok(Math.abs(total - 1) < 1e-9, `every busy sample counted once: ${total}`);
});

// Made by hand in the profile's shape: nodes with call frames, the node of
// each sample, and the microseconds before each.
test('a made-up profile: idle left out, an unnamed function called (anonymous), lines counted from 1', () => {
  const frame = (functionName, url = '', lineNumber = -1) => ({
    functionName,
    scriptId: '0',
    url,
    lineNumber,
    columnNumber: 0,
  });
  const profile = {
    nodes: [
      { id: 1, callFrame: frame('(root)') },
      { id: 2, callFrame: frame('(idle)') },
      { id: 3, callFrame: frame('', `${ROOT}/lib/relay/server.js`, 141) },
      { id: 4, callFrame: frame('parse', 'file:///elsewhere/node_modules/commander/lib/command.js', 9) },
    ],
    samples: [2, 3, 3, 4, 2],
    timeDeltas: [900, 30, 30, 40, 900],
  };
  assert.deepEqual(topFunctions(profile), [
    { function: '(anonymous)', where: 'lib/relay/server.js:142', selfShare: 0.6 },
    { function: 'parse', where: 'command.js:10', selfShare: 0.4 },
  ]);
  assert.deepEqual(
    topFunctions({ ...profile, samples: [2, 2], timeDeltas: [10, 10] }),
    [],
    'an idle relay has no busiest function',
  );
});
