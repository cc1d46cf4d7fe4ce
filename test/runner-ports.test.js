import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { assertPortsFree, findPortHolder, holderFromProc, holderFromSs, isPortFree } from '../lib/process/ports.js';
import { which } from './support/programs.js';

const PORT = 21090;

// The holder is another process, as it would be for a person: this test's
// own pid must not be what the lookup happens to find.
describe('a port held by another process', () => {
  let holder;
  before(async () => {
    holder = spawn(process.execPath, ['-e', `require('net').createServer().listen(${PORT}, '127.0.0.1', () => console.log('up'))`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await once(holder.stdout, 'data');
  });
  after(() => holder.kill('SIGKILL'));

  test('is not free, and a free one is', async () => {
    assert.equal(await isPortFree(PORT), false);
    assert.equal(await isPortFree(PORT + 1), true);
  });

  test('ss names its pid', { skip: which('ss') ? false : 'ss (iproute2) is not installed' }, async () => {
    assert.deepEqual(await holderFromSs(PORT), { pid: holder.pid, command: 'node' });
  });

  test('/proc/net/tcp and /proc/*/fd name its pid without ss', { skip: process.platform !== 'linux' && 'needs /proc' }, async () => {
    assert.deepEqual(await holderFromProc(PORT), { pid: holder.pid, command: 'node' });
  });

  test('the run is refused before it starts, naming the port, its role and the pid', async () => {
    await assert.rejects(assertPortsFree({ client: PORT + 1, server: PORT, target: PORT + 2 }), (error) => {
      assert.equal(error.exitCode, 2);
      assert.equal(
        error.message,
        `port ${PORT} (relay server) is already in use by pid ${holder.pid} (node): stop it, or pick free ports with --ports CLIENT,SERVER,TARGET`,
      );
      return true;
    });
  });
});

test('nobody holds a free port', async () => {
  assert.equal(await findPortHolder(PORT + 3), null);
});
