// @ts-check
import { figureFor, sectionsOf } from './sections/index.js';

// What a run measured (its `workload`, docs/result.md) and how: a TCP bulk
// stream (at full speed or at a fixed rate), UDP at an offered rate, or
// the request workload; for how long a run, over how many streams or
// clients, across which link. Two runs whose workloads differ measured
// different quantities: their figures are not a change of the code, so
// `compare` refuses them and `history` keeps them apart.

// { kind, description, figure } of an upgraded result: `kind` is the word
// compare and history print for the workload ('tcp' for bulk);
// `description` is one phrase, equal for two runs exactly when their
// figures can be compared.
export function workloadOf(result) {
  const { options } = result;
  const { kind, describe } = sectionsOf(result.workload);
  const link = options.link ? `, across link ${options.link.name ?? 'shaped'}` : '';
  return { kind, description: `${describe(options)}, ${options.duration} s a run${link}`, figure: figureFor(kind) };
}

// The directions a run measured, 'forward' and/or 'reverse'.
export function directionsOf(result) {
  return [...new Set(result.cases.map((caseResult) => caseResult.direction))];
}
