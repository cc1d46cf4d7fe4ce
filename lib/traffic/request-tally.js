import { distribution } from '../statistics/summaries.js';

// What the request workload counts (traffic/request-load.js): requests
// answered with their latencies, errors by kind, connections opened, all
// only once counting starts, `warmupSeconds` after the start; counting
// stops `durationSeconds` later. `onMeasuring()` is called as counting
// starts (the runner reads the relays' CPU then).
const ERROR_KINDS = Object.freeze(['refused', 'reset', 'timeout', 'badResponse']);

export class RequestTally {
  constructor({ warmupSeconds, durationSeconds, onMeasuring }) {
    this.errors = Object.fromEntries(ERROR_KINDS.map((name) => [name, 0]));
    this.samples = new Float64Array(1 << 16);
    this.ok = 0;
    this.connections = 0;
    this.warmupSeconds = warmupSeconds;
    this.onMeasuring = onMeasuring;
    this.measureFrom = performance.now() + warmupSeconds * 1000;
    this.endAt = this.measureFrom + durationSeconds * 1000;
    this.lastDone = this.measureFrom;
    this.measuring = warmupSeconds === 0;
    if (this.measuring) onMeasuring();
  }

  // Whether what began at `since` counts; counting starts on the first
  // call past the warm-up.
  counting(since) {
    if (!this.measuring && performance.now() >= this.measureFrom) {
      this.measuring = true;
      this.onMeasuring();
    }
    return this.measuring && since >= this.measureFrom;
  }

  over() {
    return performance.now() >= this.endAt;
  }

  failed(kind) {
    if (this.counting(performance.now())) this.errors[kind] += 1;
  }

  opened() {
    if (this.counting(performance.now())) this.connections += 1;
  }

  // A request begun at `startedAt` answered now.
  answered(startedAt) {
    const now = performance.now();
    if (!this.counting(startedAt)) return;
    if (this.ok === this.samples.length) {
      const grown = new Float64Array(this.samples.length * 2);
      grown.set(this.samples);
      this.samples = grown;
    }
    this.samples[this.ok] = now - startedAt;
    this.ok += 1;
    this.lastDone = now;
  }

  // The figures of docs/requests.md over the counted seconds: up to the
  // end, or to the last answer when that came later.
  figures({ kind, concurrency, newConnections }) {
    const seconds = (Math.max(this.lastDone, Math.min(performance.now(), this.endAt)) - this.measureFrom) / 1000;
    const latency = distribution(this.samples.subarray(0, this.ok));
    return {
      kind,
      concurrency,
      newConnections,
      seconds,
      warmupSeconds: this.warmupSeconds,
      ok: this.ok,
      errors: this.errors,
      connections: this.connections,
      requestsPerSecond: this.ok / seconds,
      latency: latency && { unit: 'ms', ...latency },
    };
  }
}
