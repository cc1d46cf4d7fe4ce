// @ts-check
import { Help } from 'commander';

// The commands the runner starts as processes of a case (the relays, the
// targets, the built-in engine's two ends, the bare relay, the borrowed
// TLS site). A person runs them only to debug a case by hand, so --help
// leaves them out and `cipherbench help plumbing` lists them; each still
// runs and has its own --help.
const PLUMBING = new Set(['relay', 'bare-relay', 'echo', 'udp-echo', 'sink', 'send', 'http-target', 'tls-site']);
const WIDTH = 80;

export function registerPlumbingCommand(program) {
  program.configureHelp({
    visibleCommands(command) {
      const visible = Help.prototype.visibleCommands.call(this, command);
      return command === program ? visible.filter((sub) => !PLUMBING.has(sub.name())) : visible;
    },
  });
  const list = () => plumbingList(program.commands.filter((command) => PLUMBING.has(command.name())));
  program
    .command('plumbing')
    .description('list the commands the runner starts as processes of a case (relays, targets, the built-in engine)')
    .addHelpText('after', () => `\n${list()}`)
    .action(() => process.stdout.write(list()));
}

// Each command's name and arguments, its description wrapped beside them.
function plumbingList(commands) {
  const help = new Help();
  const terms = commands.map((command) => help.subcommandTerm(command));
  const width = Math.max(...terms.map((term) => term.length)) + 4;
  const rows = commands.map((command, at) =>
    wrapped(command.description(), WIDTH - width)
      .map((line, row) => `${(row === 0 ? `  ${terms[at]}` : '').padEnd(width)}${line}`)
      .join('\n'),
  );
  return `Plumbing: the runner's own processes, to debug a case by hand; each has --help.\n\n${rows.join('\n')}\n`;
}

function wrapped(text, width) {
  const lines = [''];
  for (const word of text.split(/\s+/)) {
    const last = lines.length - 1;
    if (lines[last] && lines[last].length + 1 + word.length > width) lines.push(word);
    else lines[last] = lines[last] ? `${lines[last]} ${word}` : word;
  }
  return lines;
}
