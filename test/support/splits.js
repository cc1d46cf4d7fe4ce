// Feeds `bytes` to a fresh decoder once per way of cutting it in two (at
// every byte boundary) and once a byte at a time, as TCP may deliver it;
// `decode(pieces)` returns what the decoder made of those pieces, and every
// cut must give `expected`.
export function assertEverySplit(assert, bytes, decode, expected) {
  const same = (got, how) =>
    assert.ok(
      Buffer.compare(Buffer.concat(got), expected) === 0,
      `${how}: decoded ${Buffer.concat(got).length} bytes, expected ${expected.length}`,
    );
  for (let cut = 1; cut < bytes.length; cut++)
    same(decode([bytes.subarray(0, cut), bytes.subarray(cut)]), `cut at ${cut}`);
  same(decode(Array.from(bytes, (byte) => Buffer.from([byte]))), 'one byte at a time');
}

// A stage (data, push) run over pieces; returns what it pushed, copied.
export function runStage(stage, pieces) {
  const out = [];
  for (const piece of pieces) stage(piece, (data) => out.push(Buffer.from(data)));
  return out;
}
