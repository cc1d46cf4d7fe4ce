// SIP022 UDP replay protection: a sliding window over packet ids per
// session, as WireGuard's (RFC 6479): ids more than WINDOW behind the
// highest seen are refused as too old, and every id inside it is accepted
// once. Reordering within the window (common on loaded loopback, routine on
// the internet) passes; a replay never does. A ring of 32-bit words, so
// sliding forward clears whole words and costs nothing per packet.
const WORD_BITS = 32;
const WORDS = 128;
export const WINDOW = (WORDS - 1) * WORD_BITS;

export function createPacketWindow() {
  const ring = new Uint32Array(WORDS);
  let highest = -1;
  return {
    // true (and the id remembered) the first time an id inside the window
    // comes; false for a repeat or an id too far behind. Call only for an
    // authenticated packet, so a forger cannot slide the window.
    accept(id) {
      const word = Math.floor(id / WORD_BITS);
      if (id > highest) {
        const top = Math.floor(highest / WORD_BITS);
        const advance = Math.min(word - top, WORDS);
        for (let i = 1; i <= advance; i++) ring[(top + i + WORDS) % WORDS] = 0;
        highest = id;
      } else if (highest - id >= WINDOW) {
        return false;
      }
      const at = word % WORDS;
      const bit = 1 << (id % WORD_BITS);
      if ((ring[at] & bit) !== 0) return false;
      ring[at] |= bit;
      return true;
    },
  };
}
