// The one ranking every report prints: measured cases by their (median)
// receiver bitrate, highest first, as the blinksocks report ranked them;
// the rest in run order after them. A stable sort keeps ties in run order.
export function rankCases(result) {
  return {
    ranked: result.cases
      .filter((caseResult) => caseResult.status === 'ok')
      .sort((a, b) => b.receiver.bits_per_second - a.receiver.bits_per_second),
    unranked: result.cases.filter((caseResult) => caseResult.status !== 'ok'),
  };
}

export function isRepeated(caseResult) {
  return (caseResult.runs?.length ?? 0) > 1;
}
