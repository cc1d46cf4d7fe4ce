// Commander options from an option table (lib/runner/options.js,
// lib/report/options.js), and back: the library's option names and values
// from what commander parsed.
export function addOptions(command, table) {
  for (const { cli = [] } of table) {
    for (const { flags, description, default: value } of cli) command.option(flags, description, value);
  }
  return command;
}

export function valuesFor(table, parsed) {
  return Object.fromEntries(table.map(({ name, fromCli }) => [name, fromCli ? fromCli(parsed) : parsed[name]]));
}
