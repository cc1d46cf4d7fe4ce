// Splits a command line into argv as a POSIX shell would for the simple
// cases, without running a shell: words split on blanks, '...' taken
// literally, "..." with \" and \\ escaped, a backslash outside quotes
// escaping the next character. No variables, globs, pipes or redirections:
// the words are passed to the program as they are.
// Returns { words } or { error } (an unterminated quote or escape).
export function splitCommand(line) {
  const words = [];
  let word = null;
  let at = 0;
  const add = (text) => {
    word = (word ?? '') + text;
  };
  while (at < line.length) {
    const char = line[at];
    if (/\s/.test(char)) {
      if (word !== null) words.push(word);
      word = null;
      at += 1;
    } else if (char === "'") {
      const end = line.indexOf("'", at + 1);
      if (end === -1) return { error: `unterminated ' at character ${at + 1}` };
      add(line.slice(at + 1, end));
      at = end + 1;
    } else if (char === '"') {
      let end = at + 1;
      let text = '';
      while (end < line.length && line[end] !== '"') {
        if (line[end] === '\\' && (line[end + 1] === '"' || line[end + 1] === '\\')) end += 1;
        text += line[end];
        end += 1;
      }
      if (end >= line.length) return { error: `unterminated " at character ${at + 1}` };
      add(text);
      at = end + 1;
    } else if (char === '\\') {
      if (at + 1 >= line.length) return { error: 'a backslash at the end escapes nothing' };
      add(line[at + 1]);
      at += 2;
    } else {
      add(char);
      at += 1;
    }
  }
  if (word !== null) words.push(word);
  return { words };
}
