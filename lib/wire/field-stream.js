// The byte handling of a frame reader for formats made of fixed-size fields
// and a data part (Mux.Cool, blinksocks' mux): each field is gathered whole
// across reads (a view of the read when it lies in one, a copy only when
// split), while data goes on as it arrives, never held, so a frame that
// announces 64 KB costs nothing until its bytes come. The format steers:
// onField(bytes) ends by calling field(n) or data(n) for what comes next,
// and onDataEnd() when the data's last byte has passed, field(n) again.
export function createFieldStream({ firstField, onField, onData, onDataEnd }) {
  let need = firstField;
  let streaming = false;
  let held = [];
  let heldBytes = 0;

  return {
    field(size) {
      need = size;
      streaming = false;
    },
    data(size) {
      need = size;
      streaming = true;
    },
    read(chunk) {
      let at = 0;
      while (at < chunk.length) {
        if (streaming) {
          const piece = chunk.subarray(at, at + need);
          at += piece.length;
          need -= piece.length;
          onData(piece);
          if (need === 0) {
            streaming = false;
            onDataEnd();
          }
          continue;
        }
        const piece = chunk.subarray(at, at + need - heldBytes);
        held.push(piece);
        heldBytes += piece.length;
        at += piece.length;
        if (heldBytes < need) return;
        const bytes = held.length === 1 ? held[0] : Buffer.concat(held);
        held = [];
        heldBytes = 0;
        onField(bytes);
      }
    },
    // Whether no field is part-gathered and no data part is under way.
    idle: () => !streaming && heldBytes === 0,
  };
}
