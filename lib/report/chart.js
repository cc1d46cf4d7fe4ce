// @ts-check
// The SVG drawing both HTML pages share (the run's report and the history):
// axis ticks and units, rounding, escaping and the marks' style, so a
// bitrate axis reads the same in both.

// The axis in one unit with one number of decimals for every tick, as the
// step needs them: 0.0, 0.5, 1.0 ... or 0, 2, 4 ...
export function axisUnit(scaleMax, step) {
  const units = ['bits/sec', 'Kbits/sec', 'Mbits/sec', 'Gbits/sec', 'Tbits/sec'];
  let power = 0;
  while (power < units.length - 1 && scaleMax / 1000 ** (power + 1) >= 1) power += 1;
  const stepInUnit = step / 1000 ** power;
  const decimals = stepInUnit >= 1 ? 0 : Math.ceil(-Math.log10(stepInUnit) - 1e-9);
  return { unit: units[power], format: (tick) => (tick / 1000 ** power).toFixed(decimals) };
}

// Axis ticks at 1, 2 or 5 times a power of ten, about five of them, the
// last at or above the peak so every bar and whisker fits.
export function niceTicks(peak) {
  if (!(peak > 0)) return [0, 1];
  const rough = peak / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough);
  const count = Math.ceil(peak / step);
  return Array.from({ length: count + 1 }, (_, i) => i * step);
}

export function round(value) {
  return Math.round(value * 10) / 10;
}

export function escape(text) {
  return String(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export const CHART_STYLE = `
svg { display: block; font-size: 12px; }
svg .bar.sender { fill: #9ebbe0; }
svg .bar.receiver { fill: #2d6cb5; }
svg .whisker line { stroke: #1d2330; stroke-width: 1.5; }
svg .grid { stroke: #e3e6eb; }
svg .tick, svg .axis, svg .value { fill: #556; }
svg .label { fill: #1d2330; }
svg .marker { fill: #b35900; font-weight: 600; }
svg .reference line { stroke: #7a3e9d; stroke-width: 1.5; stroke-dasharray: 4 3; }
svg .reference text { fill: #7a3e9d; }
`;
