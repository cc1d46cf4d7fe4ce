import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { assertPortsFree, findPortHolder, holderFromProc, holderFromSs, isPortFree } from '../lib/process/ports.js';
import { freePort, freePorts } from './support/ports.js';
import { which } from './support/programs.js';

// The holder is another process, as it would be for a person: this test's
// own pid must not be what the lookup happens to find. It listens on a port
// the OS picks and says which.
describe('a port held by another process', () => {
  let holder;
  let PORT;
  let free;
  before(async () => {
    holder = spawn(
      process.execPath,
      [
        '-e',
        `const server = require('net').createServer().listen(0, '127.0.0.1', () => console.log(server.address().port))`,
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const [data] = await once(holder.stdout, 'data');
    PORT = Number(String(data).trim());
    free = await freePorts(2);
  });
  after(() => holder.kill('SIGKILL'));

  test('is not free, and a free one is', async () => {
    assert.equal(await isPortFree(PORT), false);
    assert.equal(await isPortFree(free[0]), true);
  });

  test('ss names its pid', { skip: which('ss') ? false : 'ss (iproute2) is not installed' }, async () => {
    assert.deepEqual(await holderFromSs(PORT), { pid: holder.pid, command: 'node' });
  });

  test(
    '/proc/net/tcp and /proc/*/fd name its pid without ss',
    { skip: process.platform !== 'linux' && 'needs /proc' },
    async () => {
      assert.deepEqual(await holderFromProc(PORT), { pid: holder.pid, command: 'node' });
    },
  );

  test('the run is refused before it starts, naming the port, its role and the pid', async () => {
    await assert.rejects(assertPortsFree({ client: free[0], server: PORT, target: free[1] }), (error) => {
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
  assert.equal(await findPortHolder(await freePort()), null);
});
