// @ts-check
import { BULK_SECTIONS } from './bulk-sections.js';
import { REQUESTS_SECTIONS } from './requests-sections.js';
import { UDP_SECTIONS } from './udp-sections.js';

/**
 * What a workload's result shows in a report, named once here and looked
 * up by `result.workload`: the printers (text, Markdown, HTML) each lay out
 * a section of a given name their own way and never ask which workload
 * ran. A workload whose figures an existing section shows needs only its
 * entry here. One with figures of its own lays out their case-block
 * section as text here (`ownText`: only the text report prints case
 * blocks); one ranked by a figure of its own adds its ranking section to
 * each printer's table.
 * @typedef {object} WorkloadSections
 * @property {string} kind the word compare and history print for it ('tcp' for bulk)
 * @property {(options: any) => string} describe one phrase, equal for two runs exactly when their figures compare
 * @property {import('./figures.js').Figure} figure what its cases are compared and charted by
 * @property {string} builtInEngine the header's engine row when the built-in node engine ran
 * @property {boolean} rankedByCostAtRate at a fixed --rate, ranked by the relays' CPU per GB, not bitrate
 * @property {readonly string[]} caseBlock the sections of a measured case's block, in order
 * @property {Readonly<Record<string, (caseResult: any, paint: import('chalk').ChalkInstance) => string[]>>} [ownText] the lines of a case-block section of its own, by its name in caseBlock
 * @property {readonly string[]} ranking the sections that rank its cases, in order
 */

/** @type {Readonly<Record<import('../../contracts.js').WorkloadName, WorkloadSections>>} */
const SECTIONS = Object.freeze({ bulk: BULK_SECTIONS, udp: UDP_SECTIONS, requests: REQUESTS_SECTIONS });

/** @param {string} workload a result's `workload` */
export function sectionsOf(workload) {
  const sections = SECTIONS[workload];
  if (!sections) throw new Error(`no report sections for the workload '${workload}'`);
  return sections;
}

// A case printed alone (its block as its last run ends, or through the
// API) comes without its result: its workload is the one its figures are
// of, as lib/result.js upgrades a result from before `workload`.
/** @param {{ requests?: unknown, udp?: unknown }} caseResult */
export function caseWorkload(caseResult) {
  return caseResult.requests ? 'requests' : caseResult.udp ? 'udp' : 'bulk';
}

// The figure of a workload's kind ('tcp', 'udp', 'requests') or of a
// figure's own ('bitrate', 'requests'), as compare and history name them.
/** @param {string} kind */
export function figureFor(kind) {
  const sections = Object.values(SECTIONS).find((entry) => entry.kind === kind || entry.figure.kind === kind);
  if (!sections) throw new Error(`no figure for '${kind}'`);
  return sections.figure;
}
