// @ts-check
// A link profile as the report header gives it:
// 'wan: 100 Mbit/s, 40 ms RTT added, 0.1% loss each way'.
export function linkLabel(profile) {
  const parts = [];
  if (profile.rateBps !== null) parts.push(`${formatRate(profile.rateBps)}`);
  if (profile.delayMs !== null)
    parts.push(`${profile.delayMs} ms RTT added${profile.jitterMs ? ` ± ${profile.jitterMs} ms` : ''}`);
  if (profile.lossPercent !== null) parts.push(`${profile.lossPercent}% loss each way`);
  return `${profile.name}: ${parts.join(', ') || 'unshaped'}`;
}

function formatRate(bps) {
  if (bps >= 1e9) return `${bps / 1e9} Gbit/s`;
  if (bps >= 1e6) return `${bps / 1e6} Mbit/s`;
  return `${bps / 1e3} kbit/s`;
}
