// @ts-check
// The order a run measures in: rounds. Every round goes through all the
// cases before the next round starts (A B C, C A B, never A A B B C C):
// whatever drifts during a run (a CPU warming up and throttling, a
// neighbour on a shared machine, the page cache) then touches every case
// alike instead of landing on whichever case happened to be running at the
// time, and each case's runs pair up with every other's round by round.

// The directions each case is measured in: iperf3 -c to -s ('forward'),
// iperf3 -R ('reverse'), or both, forward first.
export function directionsFor({ reverse, both }) {
  if (both) return ['forward', 'reverse'];
  return reverse ? ['reverse'] : ['forward'];
}

// One slot per case and direction, in cases-file order: what the result's
// cases[] holds. A case's identity is { index, ...what the case runs }.
export function caseSlots(selected, directions) {
  return selected.flatMap((identity) => directions.map((direction) => ({ ...identity, direction })));
}

// The order of one round: every slot once, the cases shuffled by
// `random` (Fisher-Yates), a case's reverse run right after its forward
// one. A fixed order would give whichever case follows the heaviest one
// its leftovers (a warm cache, a busy core) in every round; a fresh order
// each round spreads them over all cases (Mytkowicz et al., Google
// Benchmark's random interleaving). Returns positions in `slots`.
export function roundOrder(slots, random) {
  const groups = [];
  for (const [position, { index }] of slots.entries()) {
    const last = groups.at(-1);
    if (last && slots[last[0]].index === index) last.push(position);
    else groups.push([position]);
  }
  for (let i = groups.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [groups[i], groups[j]] = [groups[j], groups[i]];
  }
  return groups.flat();
}
