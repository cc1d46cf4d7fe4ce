// @ts-check
import { formatBitrate, formatBitrateIn } from './units.js';

const sizeLabel = (size) => (size % 1024 === 0 ? `${size / 1024}k` : `${size}`);

// The `cipherbench ciphers` table: one row per method (or chain) and read
// size, with the encrypt and decrypt ceilings per core, and when measured
// in rounds their spread: '6.78 Gbits/sec (6.51…7.02)', min and max in the
// median's unit.
export function formatCipherTable(ceilings) {
  const rows = [[ceilings.every((row) => row.method) ? 'method' : 'chain', 'size', 'encrypt', 'decrypt']];
  for (const { method, label, sizes } of ceilings) {
    for (const { size, encrypt, decrypt } of sizes) {
      rows.push([method ?? label, sizeLabel(size), withSpread(encrypt), withSpread(decrypt)]);
    }
  }
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function withSpread({ bits_per_second: median, min, max }) {
  if (min === undefined) return formatBitrate(median);
  return `${formatBitrate(median)} (${formatBitrateIn(min, median)}…${formatBitrateIn(max, median)})`;
}
