#!/usr/bin/env node
// npm run lint: ESLint, knip (exports and files nobody imports), tsc on
// the files marked // @ts-check, and Prettier's check. Each runs whatever
// the others found, so one run shows every finding; the exit status is 1
// when any of them failed, and the last line names those.
import { spawnSync } from 'node:child_process';

const CHECKS = [['eslint', '.'], ['knip'], ['tsc', '--noEmit'], ['prettier', '--check', '.']];

const failed = [];
for (const [program, ...args] of CHECKS) {
  const { status, signal, error } = spawnSync(program, args, { stdio: 'inherit' });
  if (error) throw error;
  if (signal) process.kill(process.pid, signal);
  if (status !== 0) failed.push(program);
}
if (failed.length > 0) console.log(`npm run lint: ${failed.join(', ')} failed`);
process.exit(failed.length > 0 ? 1 : 0);
