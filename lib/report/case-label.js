// @ts-check
import { chainLabel } from '../chain/label.js';

// A case runs a preset chain through our relays, or is a reference row
// naming another implementation (docs/result.md). These give either one's
// name and definition, so a report never needs to know which it has.
const REFERENCE_FIELDS = ['impl', 'protocol', 'method', 'obfs', 'security', 'alterId', 'presets', 'client', 'server'];

// What the case ran, as cases.js gives it: the chain, or the reference row.
export function caseDefinition(caseResult) {
  if (!caseResult.impl) return caseResult.presets;
  return Object.fromEntries(
    REFERENCE_FIELDS.filter((field) => caseResult[field] !== undefined).map((field) => [field, caseResult[field]]),
  );
}

// 'ss-base + ss-aead-cipher(aes-256-gcm)', or a reference row's label:
// 'shadowsocks-libev aes-256-gcm'.
export function caseLabel(caseResult) {
  return caseResult.impl ? caseResult.label : chainLabel(caseResult.presets);
}
