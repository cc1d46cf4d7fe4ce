// @ts-check
import { startHttpTarget } from '../traffic/http-target.js';
import { endpointOption, serve } from './serve.js';
import { inputError } from '../errors.js';

const LARGEST = { responseSize: 64 * 1024 * 1024, delay: 60_000, resetEvery: 1_000_000 };

// The request workload's target as a process of its own, which the runner
// starts on the target port as it starts iperf3 -s for a bulk stream.
export function registerHttpTargetCommand(program) {
  program
    .command('http-target')
    .description(
      'an HTTP/1.1 target for the request workload: answers every request with --response-size bytes, keep-alive',
    )
    .requiredOption('--listen <host:port>', 'address to accept connections on (port 0: any free port)')
    .option('--response-size <bytes>', 'bytes in each response body', '2')
    .option('--delay <ms>', 'hold each answer back this long (a slow server)', '0')
    .option(
      '--reset-every <count>',
      'reset the connection of every COUNTth request instead of answering it (0: never)',
      '0',
    )
    .action(async (options) => {
      const listen = endpointOption('--listen', options.listen, { anyPort: true });
      const responseSize = whole('--response-size', options.responseSize, LARGEST.responseSize);
      const delayMs = whole('--delay', options.delay, LARGEST.delay);
      const resetEvery = whole('--reset-every', options.resetEvery, LARGEST.resetEvery);
      await serve(() => startHttpTarget({ ...listen, responseSize, delayMs, resetEvery }));
    });
}

function whole(flag, text, largest) {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > largest)
    throw inputError(`${flag} must be a whole number from 0 to ${largest}, got ${JSON.stringify(text)}`);
  return value;
}
