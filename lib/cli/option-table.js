// @ts-check
import { Option } from 'commander';

// Commander options from an option table (lib/runner/run-options.js,
// lib/report/report-options.js), and back: the library's option names and values
// from what commander parsed. An entry `hidden(entry)` names is still
// parsed, so that the library refuses it saying why, but left out of
// --help.
/**
 * @template {{ name: string, cli?: readonly { flags: string, description: string, default?: unknown }[] }} Entry
 * @param {import('commander').Command} command
 * @param {readonly Entry[]} table
 * @param {{ hidden?: (entry: Entry) => boolean }} [options]
 */
export function addOptions(command, table, { hidden = () => false } = {}) {
  for (const entry of table) {
    for (const { flags, description, default: value } of entry.cli ?? [])
      command.addOption(new Option(flags, description).default(value).hideHelp(hidden(entry)));
  }
  return command;
}

export function valuesFor(table, parsed) {
  return Object.fromEntries(table.map(({ name, fromCli }) => [name, fromCli ? fromCli(parsed) : parsed[name]]));
}
