// @ts-check
import path from 'node:path';
import { findPrograms } from '../process/programs.js';
import { splitCommand } from '../process/split-command.js';

// Any other relay pair, given as two command lines. Before each run the
// placeholders are filled in: {listen} is the address this side listens on
// (the relay client's port or the relay server's), {server} the relay
// server's address, {forward} the target's and {key} the run's password.
// Each line is split into argv here, never by a shell. Such a program may
// print anything or nothing, so readiness comes from the listening table.
const PLACEHOLDERS = ['listen', 'server', 'forward', 'key'];
// Only {word}: JSON in a command line ({"name":"ss-base"}) is left alone.
const PLACEHOLDER = /\{([A-Za-z_]\w*)\}/g;
// What each side must be told at least: where to listen, and for the
// client where the server is; the target may be named on either side.
const REQUIRED = { client: ['listen', 'server'], server: ['listen'] };

const placeholdersIn = (line) => [...line.matchAll(PLACEHOLDER)].map((match) => match[1]);

function validate(reference) {
  const problems = [];
  for (const role of ['client', 'server']) {
    const line = reference[role];
    if (typeof line !== 'string' || line.trim() === '') {
      problems.push({
        field: role,
        message: `missing: the ${role} relay's command line, with ${REQUIRED[role].map((name) => `{${name}}`).join(' and ')} in it`,
      });
      continue;
    }
    const split = splitCommand(line);
    if (split.error) {
      problems.push({ field: role, message: split.error });
      continue;
    }
    if (!split.words[0]) problems.push({ field: role, message: 'names no program to run' });
    else if (placeholdersIn(split.words[0]).length > 0)
      problems.push({ field: role, message: 'the program to run cannot be a placeholder' });
    const used = placeholdersIn(line);
    const unknown = used.filter((name) => !PLACEHOLDERS.includes(name));
    if (unknown.length > 0) {
      problems.push({
        field: role,
        message: `unknown placeholder ${unknown.map((name) => `{${name}}`).join(', ')}; valid: ${PLACEHOLDERS.map((name) => `{${name}}`).join(', ')}`,
      });
    }
    const absent = REQUIRED[role].filter((name) => !used.includes(name));
    if (absent.length > 0)
      problems.push({
        field: role,
        message: `has no ${absent.map((name) => `{${name}}`).join(' or ')}: the ${role} relay must be told ${describe(absent)}`,
      });
  }
  const both = ['client', 'server'].map((role) => reference[role]).filter((line) => typeof line === 'string');
  if (problems.length === 0 && !both.some((line) => placeholdersIn(line).includes('forward'))) {
    problems.push({
      field: 'client',
      message: 'neither command has {forward}: one of the relays must be told the target address',
    });
  }
  return problems;
}

function describe(names) {
  const what = { listen: 'where to listen', server: 'where the relay server is' };
  return names.map((name) => what[name]).join(' and ');
}

const programOf = (line) => splitCommand(line).words[0];

function label(reference) {
  const names = [...new Set(['server', 'client'].map((role) => path.basename(programOf(reference[role]))))];
  return `command ${names.join(' + ')}`;
}

function argv(line, values) {
  return splitCommand(line).words.map((word) => word.replace(PLACEHOLDER, (_, name) => values[name]));
}

/** @type {import('../contracts.js').Peer} */
export default {
  impl: 'command',
  fields: ['client', 'server'],
  validate,
  label,
  hint: "install it, or give its full path in the case's command",
  locate: (reference, options) =>
    findPrograms([...new Set(['server', 'client'].map((role) => programOf(reference[role])))], options),
  plan: async (reference, { ports, key, found, serverHost = '127.0.0.1', serverBind = serverHost }) => {
    const shared = { server: `${serverHost}:${ports.server}`, forward: `127.0.0.1:${ports.target}`, key };
    const relays = ['server', 'client'].map((role) => {
      const listen = role === 'server' ? ports.server : ports.client;
      const host = role === 'server' ? serverBind : '127.0.0.1';
      const [program, ...args] = argv(reference[role], { ...shared, listen: `${host}:${listen}` });
      return {
        role,
        label: `${role} ${path.basename(program)}`,
        file: found[program],
        args,
        readiness: { listening: listen },
      };
    });
    return { relays, entryPort: ports.client };
  },
};
