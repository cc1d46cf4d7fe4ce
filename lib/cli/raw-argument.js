// @ts-check
import { readFileSync } from 'node:fs';
import { inputError } from '../errors.js';

// Node decodes the command line as UTF-8 and turns each byte that is not
// UTF-8 into U+FFFD, so a key typed in Latin-1 (0xFF) would become the
// bytes EF BF BD, and derive another master key than shadowsocks-libev,
// which hashes the bytes as given. On Linux the bytes as given are still in
// /proc/self/cmdline: this returns the value of `flag` from there (a
// Buffer) when the decoded text shows a replacement, and the text otherwise.
// A relay started by hand runs again in a node with its own flags
// (relay-node-flags.js), and Node can pass a child only UTF-8: the first
// process then hands its command line's bytes on in RAW_COMMAND_LINE.
export const RAW_COMMAND_LINE = 'CIPHERBENCH_RAW_COMMAND_LINE';

export function rawOptionValue(flag, decoded) {
  if (!decoded.includes('\uFFFD')) return decoded;
  let commandLine;
  try {
    commandLine = process.env[RAW_COMMAND_LINE]
      ? Buffer.from(process.env[RAW_COMMAND_LINE], 'base64')
      : readFileSync('/proc/self/cmdline');
  } catch {
    throw inputError(
      `${flag} is not valid UTF-8, and this system does not show a process its command line as bytes: give ${flag} as UTF-8`,
    );
  }
  const args = [];
  for (let start = 0; start < commandLine.length;) {
    const end = commandLine.indexOf(0, start);
    args.push(commandLine.subarray(start, end < 0 ? commandLine.length : end));
    start = end < 0 ? commandLine.length : end + 1;
  }
  const inline = Buffer.from(`${flag}=`);
  for (let i = 0; i < args.length; i++) {
    if (args[i].toString('utf8') === flag && args[i + 1]?.toString('utf8') === decoded) return args[i + 1];
    if (
      args[i].subarray(0, inline.length).equals(inline) &&
      args[i].subarray(inline.length).toString('utf8') === decoded
    )
      return args[i].subarray(inline.length);
  }
  return decoded;
}
