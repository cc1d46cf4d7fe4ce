import { after } from 'node:test';
import { startHttpTarget } from '../../lib/traffic/http-target.js';
import { stopAll } from './processes.js';

// The request workload's targets for one test file: each closed, with
// every process the file started, after its tests. `closers` takes
// anything else the file must close then.
export function httpTargets() {
  const closers = [];
  after(async () => {
    await Promise.all(closers.map((close) => close()));
    await stopAll();
  });
  const target = async (options) => {
    const started = await startHttpTarget(options);
    closers.push(started.close);
    return started;
  };
  return { target, closers };
}
