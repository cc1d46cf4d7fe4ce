// @ts-check
import { newChainPassword } from '../chain/requirements.js';
import { prepareUdpChain, withoutUdpPhrase } from '../chain/udp-form.js';
import { inputError } from '../errors.js';
import { median, summarise } from '../statistics/summaries.js';
import { UDP_LENGTH } from '../traffic/udp-datagrams.js';
import { BITRATE, bulkWorkload, transferThrough } from './bulk.js';
import { CATALOGUE } from '../presets/index.js';

// run --udp: what must hold before anything starts, and what a case's UDP
// runs add up to.

// Without --rate, each case's rate is searched from DEFAULT_UDP_RATE down,
// and a row that loses more than DEFAULT_MAX_LOSS percent is not ranked by
// what got through: what arrives past the loss a relay can sustain is
// whatever the kernel's buffers let by, not the relay's rate.
export const DEFAULT_UDP_RATE = '1G';
export const DEFAULT_MAX_LOSS = 1;

// The UDP workload (docs/udp.md): the engine's UDP client (iperf3 -u, or
// the built-in sender) offers `rate` bits/s in datagrams of `length` bytes
// through the case's UDP entry, one stream forward
// (with iperf3 also reversed or parallel). Its run adds { sender,
// receiver, udp } (datagrams sent, lost, jitter, and the loss bound it is
// judged by, --max-loss: docs/result.md).
/** @type {import('../contracts.js').Workload} */
export const udpWorkload = {
  name: 'udp',
  // Recorded beside `workload`: results from before it told a UDP run by it.
  option: {
    name: 'udp',
    after: 'latency',
    recorded: true,
    notForRequests:
      'measures datagrams (iperf3 -u), not requests: drop it, or measure UDP with `cipherbench run --udp`',
    cli: [
      {
        flags: '--udp',
        description: `measure UDP: iperf3 -u (or the built-in engine's UDP mode) through each case's relays in datagrams of --length bytes (loss, jitter, out-of-order; docs/udp.md); without --rate each case's highest rate losing at most --max-loss (${DEFAULT_MAX_LOSS}%), searched from ${DEFAULT_UDP_RATE} down`,
      },
    ],
  },
  figures: { field: 'udp', after: 'negotiated' },
  chooseEngine: bulkWorkload.chooseEngine,
  check: async (selected, settings, engine) => {
    bulkWorkload.check(selected, { ...settings, rate: null }, engine);
    // Every peer's module loads with a UDP run, not with every command of
    // the CLI, which reads this workload's option.
    checkUdpCases(selected, settings, engine, await import('../peers/index.js'));
  },
  // Over UDP the rate is the offered load, and loss at it the figure.
  figure: () => BITRATE,
  target: bulkWorkload.target,
  measure: (measuring) =>
    transferThrough(measuring, {
      rate: null,
      udp: { rate: measuring.settings.rate, length: measuring.settings.length },
    }),
  measured: bulkWorkload.measured,
  result: ({ sender, receiver, udp }, settings) => ({
    sender,
    receiver,
    ...(udp ? { udp: { ...udp, lossBound: settings.maxLoss } } : {}),
  }),
  summarise: (runs, { level }) => ({ ...summarise(runs, { level }), udp: summariseUdp(runs) }),
};

const caseName = (identity) =>
  identity.label ?? (identity.presets ?? []).map((preset) => preset.params?.method ?? preset.name).join(' + ');

// Every case relays UDP, a datagram of --length bytes still fits an IPv4
// datagram once each chain has wrapped it, and the built-in engine is
// asked for what it sends: one stream, forward (iperf3 -u does -P and -R
// too). Throws the first problem as one line.
function checkUdpCases(selected, { length, parallel, reverse, both }, engine, { carriesUdp, withoutUdpReason }) {
  if (engine.name === 'node' && (parallel > 1 || reverse || both)) {
    throw inputError(
      `--udp with the built-in engine sends one stream forward: give it without ${parallel > 1 ? '--parallel' : reverse ? '--reverse' : '--both'}, or measure with iperf3 (--engine iperf3)`,
    );
  }
  for (const identity of selected) {
    if (!carriesUdp(identity)) {
      const reason =
        identity.presets && !identity.impl ? withoutUdpPhrase(CATALOGUE, identity.presets) : withoutUdpReason(identity);
      const without = reason ? ` (${reason})` : '';
      throw inputError(
        `--udp: case ${identity.index}, ${caseName(identity)}, has no UDP form${without}; leave it out with --filter, or run without --udp`,
      );
    }
    if (identity.presets && !identity.impl) {
      const { overhead } = prepareUdpChain(CATALOGUE, identity.presets, {
        password: newChainPassword(CATALOGUE, identity.presets) ?? 'overhead',
      });
      if (length + overhead > UDP_LENGTH.max) {
        throw inputError(
          `--length ${length}: case ${identity.index}, ${caseName(identity)}, adds up to ${overhead} bytes to each datagram, past the ${UDP_LENGTH.max} an IPv4 datagram holds; give --length ${UDP_LENGTH.max - overhead} or less`,
        );
      }
    }
  }
}

// --max-loss: the highest offered rate up to `rate` whose loss is at most
// `maxLoss` percent, by bisection over `probes` runs of the case (each a
// run of its own: relays started, measured, stopped), the first at `rate`
// itself. Resolves with the run at that rate (or, when none passed, the
// last), its udp figures carrying maxLoss: { percent, rateBps (null when
// none passed), probes: [{ rateBps, lost_percent }] }. A run that fails
// ends the search with that run.
export const BISECTION_PROBES = 6;

export async function bisectRate(runAt, { rate, maxLoss }, probes = BISECTION_PROBES) {
  let low = 0;
  let high = rate;
  let best = null;
  let last = null;
  const tried = [];
  for (let probe = rate; tried.length < probes; probe = Math.round((low + high) / 2)) {
    const outcome = await runAt(probe);
    if (outcome.status !== 'ok') return outcome;
    tried.push({ rateBps: probe, lost_percent: outcome.udp.lost_percent });
    last = outcome;
    if (outcome.udp.lost_percent <= maxLoss) {
      best = outcome;
      low = probe;
      if (probe === rate) break;
    } else {
      high = probe;
    }
  }
  const chosen = best ?? last;
  return {
    ...chosen,
    udp: { ...chosen.udp, maxLoss: { percent: maxLoss, rateBps: best ? low : null, probes: tried } },
  };
}

// The rates found by --max-loss in the runs where one passed.
const passed = (measured) => {
  const rates = measured.map((figures) => figures.maxLoss.rateBps).filter((rate) => rate !== null);
  return rates.length > 0 ? rates : null;
};

// The ok runs that lost more than the bound they were judged by (a
// fixed-rate run, or a search where no probe passed): { percent, runs, of,
// lost_percent, offeredBps, searched } with the worst one's loss and
// rate, or null when every run kept within it. What got through such a
// run is what the kernel's buffers let by, not a rate the relays carry:
// the reports do not rank the case by it (docs/udp.md).
function overBound(measured) {
  const over = measured.filter(
    (figures) => typeof figures.lossBound === 'number' && figures.lost_percent > figures.lossBound,
  );
  if (over.length === 0) return null;
  const worst = over.reduce((most, figures) => (figures.lost_percent > most.lost_percent ? figures : most));
  return {
    percent: worst.lossBound,
    runs: over.length,
    of: measured.length,
    lost_percent: worst.lost_percent,
    offeredBps: worst.offeredBps,
    searched: Boolean(worst.maxLoss),
  };
}

// The medians over the ok runs of what iperf3 -u reported, and whether
// any lost more than its bound; null for a case that ran without --udp or
// measured nothing.
export function summariseUdp(runs) {
  const measured = runs.map((run) => run.udp).filter(Boolean);
  if (measured.length === 0) return null;
  const middle = (field) => median(measured.map((figures) => figures[field]));
  return {
    // A search's runs each offered the rate it found (or its lowest):
    // the median, as every other figure here is.
    offeredBps: middle('offeredBps'),
    length: measured[0].length,
    packets: middle('packets'),
    lost_packets: middle('lost_packets'),
    lost_percent: middle('lost_percent'),
    jitter_ms: middle('jitter_ms'),
    out_of_order: middle('out_of_order'),
    maxLoss: measured[0].maxLoss
      ? { percent: measured[0].maxLoss.percent, rateBps: passed(measured) ? median(passed(measured)) : null }
      : null,
    overBound: overBound(measured),
  };
}
