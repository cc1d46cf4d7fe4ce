// @ts-check
// Numbers printed the way iperf3 prints them (its unit_snprintf), so a figure
// in our report reads exactly like the iperf3 output a reader already knows:
// at most four digits, bytes in 1024 steps, bits in 1000 steps.
const BYTE_UNITS = ['Bytes', 'KBytes', 'MBytes', 'GBytes', 'TBytes'];
const BIT_UNITS = ['bits/sec', 'Kbits/sec', 'Mbits/sec', 'Gbits/sec', 'Tbits/sec'];

export function formatBytes(bytes) {
  return adaptive(bytes, 1024, BYTE_UNITS);
}

export function formatBitrate(bitsPerSecond) {
  return adaptive(bitsPerSecond, 1000, BIT_UNITS);
}

// iperf3's "%6.2f-%-6.2f sec" with the leading padding dropped, as the
// blinksocks report shows it: '0.00-3.00   sec'.
export function formatInterval(startSeconds, endSeconds) {
  return `${formatFixed(startSeconds, 2)}-${formatFixed(endSeconds, 2).padEnd(6)} sec`;
}

// glibc's printf rounds a value lying exactly halfway to the even digit,
// where toFixed rounds it up: 0.125 prints as '0.12', not '0.13'. toFixed(100)
// is the exact decimal expansion of any double this report meets.
export function formatFixed(value, digits) {
  const exact = value.toFixed(100);
  const cut = exact.indexOf('.') + 1 + digits;
  if (!/^50*$/.test(exact.slice(cut))) return value.toFixed(digits);
  const truncated = exact.slice(0, digits === 0 ? cut - 1 : cut);
  return Number(truncated.at(-1)) % 2 === 0 ? truncated : value.toFixed(digits);
}

// A spread printed beside its median reads best in the median's unit and
// without it: 'median 2.45 Gbits/sec  min 0.98  max 2.52'. Digits follow the
// value itself, as iperf3 would choose them.
export function formatBitrateIn(bitsPerSecond, referenceBitsPerSecond) {
  const shown = bitsPerSecond * reciprocal(1000, scaleStep(referenceBitsPerSecond, 1000, BIT_UNITS));
  return formatFixed(shown, digitsFor(shown));
}

// The scale and the multiplication by a reciprocal repeat iperf3's own
// arithmetic, so values on a rounding edge land on the same side.
function adaptive(value, base, units) {
  const step = scaleStep(value, base, units);
  const shown = value * reciprocal(base, step);
  return `${formatFixed(shown, digitsFor(shown))} ${units[step]}`;
}

function scaleStep(value, base, units) {
  let scaled = value;
  let step = 0;
  while (scaled >= base && step < units.length - 1) {
    scaled /= base;
    step += 1;
  }
  return step;
}

function reciprocal(base, step) {
  let factor = 1;
  for (let i = 0; i < step; i += 1) factor /= base;
  return factor;
}

function digitsFor(shown) {
  return shown < 9.995 ? 2 : shown < 99.95 ? 1 : 0;
}
