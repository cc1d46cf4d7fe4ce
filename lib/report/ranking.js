import { caseLabel } from './case-label.js';
import { formatFixed } from './units.js';

// The one ranking every report prints: measured cases by their (median)
// receiver bitrate, highest first, as the blinksocks report ranked them;
// the rest in run order after them. A stable sort keeps ties in run order.
// A case the request workload measured has no bitrate: rankRequests()
// ranks it.
export function rankCases(result) {
  return {
    ranked: result.cases
      .filter((caseResult) => caseResult.status === 'ok' && caseResult.receiver)
      .sort((a, b) => b.receiver.bits_per_second - a.receiver.bits_per_second),
    unranked: result.cases.filter((caseResult) => caseResult.status !== 'ok'),
  };
}

// The request workload's ranking: by (median) requests per second, highest
// first, as seed 002's tables read.
export function rankRequests(result) {
  return result.cases
    .filter((caseResult) => caseResult.status === 'ok' && caseResult.requests)
    .sort((a, b) => b.requests.requestsPerSecond - a.requests.requestsPerSecond);
}

export function isRepeated(caseResult) {
  return caseResult.runs.length > 1;
}

// The case --relative-to named, as { index, label }; null without one.
export function relativeReference(result) {
  const to = result.cases.find((caseResult) => caseResult.relative)?.relative.to;
  if (to === undefined) return null;
  const reference = result.cases.find((caseResult) => caseResult.index === to);
  return { index: to, label: reference ? caseLabel(reference) : `case ${to}` };
}

// A case's median as a multiple of the reference's, '0.83 x', 'reference'
// for the reference itself, or '' when there is nothing to say: no
// --relative-to, or one side measured nothing.
export function relativeCell(caseResult) {
  const { relative } = caseResult;
  if (!relative) return '';
  if (caseResult.index === relative.to) return 'reference';
  return relative.ratio === null ? '' : `${formatFixed(relative.ratio, 2)} x`;
}
