import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parsePerfReport } from '../../lib/profile/perf-record.js';

const fixture = (name) => readFileSync(new URL(`../fixtures/profile/${name}`, import.meta.url), 'utf8');

// A real `perf report --stdio --no-children --sort dso,symbol -q` of
// ss-server carrying aes-256-gcm (test/fixtures/profile/README.md): with -g,
// each row is followed by its callers, indented under '|' and '---', which
// are not rows of their own.
test('perf report: the six busiest functions by self time, callers left out', () => {
  assert.deepEqual(parsePerfReport(fixture('ss-server-aes-256-gcm.perf-report.txt')), [
    {
      function: 'crypto_aead_aes256gcm_decrypt_detached_afternm',
      where: 'libsodium.so.23.3.0',
      selfShare: 42.57 / 100,
    },
    { function: '_raw_spin_unlock_irqrestore', where: '[kernel.kallsyms]', selfShare: 8.84 / 100 },
    { function: 'finish_task_switch.isra.0', where: '[kernel.kallsyms]', selfShare: 8.84 / 100 },
    { function: '_copy_to_iter', where: '[kernel.kallsyms]', selfShare: 5.22 / 100 },
    { function: '__memmove_avx512_unaligned_erms', where: 'libc.so.6', selfShare: 2.01 / 100 },
    { function: 'handle_softirqs', where: '[kernel.kallsyms]', selfShare: 1.2 / 100 },
  ]);
});

// perf pads a -g report's symbol with empty columns ('-      -'); without
// -g a row ends at the symbol. A symbol may hold spaces of its own.
test('perf report: a row without call graphs, and a symbol with a space, read the same way', () => {
  const text = [
    '    61.50%  ss-server          [.] aes_gcm_dec  ',
    '    30.25%  [kernel.kallsyms]  [k] copy_user_enhanced_fast_string',
    '     8.25%  libc.so.6          [.] operator new(unsigned long)  -      -   ',
    '',
  ].join('\n');
  assert.deepEqual(parsePerfReport(text), [
    { function: 'aes_gcm_dec', where: 'ss-server', selfShare: 61.5 / 100 },
    { function: 'copy_user_enhanced_fast_string', where: '[kernel.kallsyms]', selfShare: 30.25 / 100 },
    { function: 'operator new(unsigned long)', where: 'libc.so.6', selfShare: 8.25 / 100 },
  ]);
});

test('perf report: a report with no samples gives no rows', () => {
  assert.deepEqual(parsePerfReport(''), []);
  assert.deepEqual(
    parsePerfReport('# To display the perf.data header info, please use --header/--header-only options.\n#\n'),
    [],
  );
});
