import { formatEndpoint } from '../relay/endpoint.js';
import { newCookie } from './protocol.js';

// What every engine test (TCP or UDP) opens with: the target's name for
// messages, the cookie that ties its connections together at the sink, and
// `stop`, which the caller's signal aborts too, so one abort ends the test
// whichever side asked. release() detaches from the caller's signal when
// the test ends; reportStart(testStart) is iperf3 -J's `start` block for
// the report, the same in both modes.
export function openTestSession({ host, port, signal }) {
  signal?.throwIfAborted();
  const startedAt = new Date();
  const cookie = newCookie();
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    target: formatEndpoint({ host, port }),
    cookie,
    stop,
    release: () => signal?.removeEventListener('abort', onAbort),
    reportStart: (testStart) => ({
      connecting_to: { host, port },
      cookie: cookie.toString('hex'),
      timestamp: { time: startedAt.toUTCString(), timesecs: Math.floor(startedAt.getTime() / 1000) },
      test_start: testStart,
    }),
  };
}
