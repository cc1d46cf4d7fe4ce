// What the known-answer tests of the two mux frame codecs (Mux.Cool and
// blinksocks-mux, lib/wire) share: a reader run over pieces, and the ways
// TCP may cut a frame's bytes. Pure: no process, no socket.

// Every frame `createFrameReader`'s reader finds in `pieces`, each with its
// data joined (latin1), and whether the reader stopped at a frame's
// boundary.
export function readMuxFrames(createFrameReader, pieces) {
  const frames = [];
  let data = [];
  const reader = createFrameReader({
    onFrame: () => {},
    onData: (frame, piece) => data.push(Buffer.from(piece)),
    onFrameEnd(frame) {
      frames.push({ ...frame, data: Buffer.concat(data).toString('latin1') });
      data = [];
    },
  });
  for (const piece of pieces) reader.read(piece);
  return { frames, atBoundary: reader.atBoundary() };
}

// `bytes` whole, a byte at a time, and cut in two at every byte.
export function everyCut(bytes) {
  const cuts = [[bytes], Array.from(bytes, (byte) => Buffer.from([byte]))];
  for (let cut = 1; cut < bytes.length; cut++) cuts.push([bytes.subarray(0, cut), bytes.subarray(cut)]);
  return cuts;
}

export const pick = (frame, keys) => Object.fromEntries(keys.map((key) => [key, frame[key]]));
