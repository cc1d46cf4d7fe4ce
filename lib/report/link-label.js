// @ts-check
// A link profile as the report header gives it:
// 'wan: 100 Mbit/s, 40 ms RTT added, 0.1% loss each way'.
export function linkLabel(profile) {
  const parts = [];
  if (profile.rate_bps !== null) parts.push(`${formatRate(profile.rate_bps)}`);
  if (profile.delay_ms !== null)
    parts.push(`${profile.delay_ms} ms RTT added${profile.jitter_ms ? ` ± ${profile.jitter_ms} ms` : ''}`);
  if (profile.loss_percent !== null) parts.push(`${profile.loss_percent}% loss each way`);
  return `${profile.name}: ${parts.join(', ') || 'unshaped'}`;
}

function formatRate(bps) {
  if (bps >= 1e9) return `${bps / 1e9} Gbit/s`;
  if (bps >= 1e6) return `${bps / 1e6} Mbit/s`;
  return `${bps / 1e3} kbit/s`;
}
