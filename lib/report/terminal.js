// @ts-check
// Colour only on a terminal, never with --no-color (color: false) or
// NO_COLOR (https://no-color.org: present and not empty turns it off).
/**
 * @param {{ isTTY?: boolean }} stream
 * @param {{ color?: unknown }} [options]
 */
export function useColor(stream, { color } = {}) {
  return color !== false && !process.env.NO_COLOR && Boolean(stream.isTTY);
}
