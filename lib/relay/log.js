// Relay logging on stderr. The default level says only what a person needs;
// "debug" says why each connection closed, which hostile traffic makes noisy.
const LEVELS = ['error', 'warn', 'info', 'debug'];

export const LOG_LEVELS = LEVELS;

export function createLog(level = 'info', write = (line) => process.stderr.write(`${line}\n`)) {
  const threshold = LEVELS.indexOf(level);
  const at = (name) => (threshold >= LEVELS.indexOf(name) ? (message) => write(`${name}: ${message}`) : () => {});
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
