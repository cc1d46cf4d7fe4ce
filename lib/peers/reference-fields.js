// @ts-check
import { nearestHint } from '../nearest-name.js';

// The problems a reference row's fields can have, in the { field, message }
// shape every peer's validate() returns.
export const fieldProblem = (field, message) => ({ field, message });

// A field whose value must be one of `valid`: missing, or unknown with the
// nearest valid name. `elsewhere` names the peer that has a value this one
// lacks ({ hysteria2: 'sing-box' }): not a typo, so no "did you mean".
export function oneOf(field, value, valid, { elsewhere = {} } = {}) {
  if (valid.includes(value)) return null;
  if (value === undefined) return fieldProblem(field, `missing; valid: ${valid.join(', ')}`);
  const other = typeof value === 'string' && Object.hasOwn(elsewhere, value) ? elsewhere[value] : undefined;
  const hint = other ? `: ${other} carries it ({ impl: '${other}', ${field}: '${value}' })` : nearestHint(value, valid);
  return fieldProblem(field, `unknown ${field} ${JSON.stringify(value)}${hint}; valid: ${valid.join(', ')}`);
}
