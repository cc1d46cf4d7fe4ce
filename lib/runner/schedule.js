// The order a run measures in. Every repeat goes through all the cases
// before the next repeat starts (A B C A B C, never A A B B C C): whatever
// drifts during a run (a CPU warming up and throttling, a neighbour on a
// shared machine, the page cache) then touches every case alike instead of
// landing on whichever case happened to be running at the time.

// The directions each case is measured in: iperf3 -c to -s ('forward'),
// iperf3 -R ('reverse'), or both, forward first.
export function directionsFor({ reverse, both }) {
  if (both) return ['forward', 'reverse'];
  return reverse ? ['reverse'] : ['forward'];
}

// One entry per case and direction, in cases-file order: what the result's
// cases[] holds. A selection is { index, ...what the case runs }.
export function caseEntries(selected, directions) {
  return selected.flatMap((selection) => directions.map((direction) => ({ ...selection, direction })));
}

// Every measurement of the run, in the order it happens: { entry, repeat }
// where entry is a position in `entries`. With --both a case's reverse run
// follows its forward run within each repeat.
export function interleave(entryCount, repeat) {
  const slots = [];
  for (let round = 0; round < repeat; round += 1) {
    for (let entry = 0; entry < entryCount; entry += 1) slots.push({ entry, repeat: round });
  }
  return slots;
}
