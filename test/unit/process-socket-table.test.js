import assert from 'node:assert/strict';
import test from 'node:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inodesIn, readListeners } from '../../lib/process/socket-table.js';

// Lines as /proc/net/tcp and /proc/net/udp print them (read off this machine).
const TCP = [
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
  '   0: 0100007F:818B 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 9694279 1 00000000412693e6 100 0 0 10 0',
  '   1: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1076 1 00000000364aaa9d 100 0 0 10 0',
  // A TIME_WAIT connection from that port and one to it: not listening.
  ' 2042: 0100007F:818B 0100007F:C350 06 00000000:00000000 03:00000F1A 00000000     0        0 0 3 0000000000000000',
  '12345: 0100007F:D431 0100007F:818B 01 00000000:00000000 00:00000000 00000000     0        0 9700001 1 0000000000000000 20 4 30 10 -1',
].join('\n');
const UDP = [
  '   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops',
  ' 8963: 0100007F:36B9 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 9693821 2 0000000005365204 0',
].join('\n');

test('the socket table: the inodes listening on a port, and nothing for a connection from or to it', () => {
  assert.deepEqual(inodesIn(TCP, 0x818b, '0A'), ['9694279']);
  assert.deepEqual(inodesIn(TCP, 2024, '0A'), ['1076']);
  assert.deepEqual(inodesIn(TCP, 0xd431, '0A'), []);
  assert.deepEqual(inodesIn(TCP, 0x36b9, '0A'), []);
  assert.deepEqual(inodesIn(UDP, 0x36b9, '07'), ['9693821']);
  assert.deepEqual(inodesIn(UDP, 0x36b9, '0A'), []);
});

test("a TCP table's listeners are read up to the first line in another state, not through every TIME_WAIT after it", async () => {
  const lines = TCP.split('\n');
  const timeWait = lines[3];
  const dir = await mkdtemp(join(tmpdir(), 'cipherbench-table-'));
  try {
    const path = join(dir, 'tcp');
    // 40,000 TIME_WAIT lines, as after a request benchmark: 4 MB.
    await writeFile(path, [...lines.slice(0, 3), ...Array(40_000).fill(timeWait), lines[4]].join('\n'));
    const listeners = await readListeners(path);
    assert.equal(listeners, `${lines.slice(0, 3).join('\n')}\n`);
    assert.deepEqual(inodesIn(listeners, 0x818b, '0A'), ['9694279']);
    // A table of listeners alone is read to its end.
    await writeFile(path, lines.slice(0, 3).join('\n'));
    assert.equal(await readListeners(path), lines.slice(0, 3).join('\n'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
