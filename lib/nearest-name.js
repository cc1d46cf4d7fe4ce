// The name a mistyped word most likely meant: the one fewest single-letter
// edits away (Levenshtein), or a name it starts or ends, within a third of
// the word's length; null when none is that close.
export function nearestName(word, names) {
  let best = null;
  let bestDistance = Infinity;
  for (const name of names) {
    // A name the word starts or ends counts as between one edit and two,
    // so a one-letter slip in a longer name ('chacha20-ietf-poly13O5') still
    // wins over the shorter name it starts with ('chacha20-ietf').
    const edits = editDistance(word, name);
    // Only a start that is at least half the name: 'x' means nothing.
    const starts =
      (name.startsWith(word) || word.startsWith(name)) &&
      Math.min(word.length, name.length) * 2 >= Math.max(word.length, name.length);
    const distance = starts ? Math.min(edits, 1.5) : edits;
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : null;
}

function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

// ' (did you mean "ss-base"?)' after a name that is not one of `names`, or
// '' when none is near, for messages that then list every valid name.
export function nearestHint(word, names) {
  const nearest = typeof word === 'string' ? nearestName(word, names) : null;
  return nearest ? ` (did you mean ${JSON.stringify(nearest)}?)` : '';
}
