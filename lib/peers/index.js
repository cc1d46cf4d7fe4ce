// @ts-check
import bareNode from './bare-node.js';
import blinksocks from './blinksocks.js';
import command from './command.js';
import direct from './direct.js';
import { isPlainObject } from '../plain-object.js';
import { commandOutput } from '../process/processes.js';
import { CASE_INBOUNDS } from './inbounds.js';
import { nearestHint } from '../nearest-name.js';
import ours from './ours.js';
import plain from './plain.js';
import shadowsocksLibev from './shadowsocks-libev.js';
import shadowsocksRust from './shadowsocks-rust.js';
import singBox from './sing-box.js';
import ssr from './ssr.js';
import trojanGfw from './trojan-gfw.js';
import v2ray from './v2ray.js';
import xray from './xray.js';

// A case is a preset chain, run by our relays, or a reference row naming
// another implementation: { impl: 'shadowsocks-libev', method }. Every
// implementation is a module here of one shape, the Peer type of
// lib/contracts.js (what it can carry, how to start its two halves); a
// chain case runs on ours.js. The runner starts, waits for, measures,
// costs and stops every one alike.
/** @type {Record<string, import('../contracts.js').Peer>} */
const PEERS = Object.fromEntries(
  [
    direct,
    plain,
    bareNode,
    shadowsocksLibev,
    shadowsocksRust,
    blinksocks,
    v2ray,
    xray,
    singBox,
    trojanGfw,
    ssr,
    command,
  ].map((peer) => [peer.impl, peer]),
);
export const IMPLS = Object.keys(PEERS);
// Own names only: a case's impl of "toString" names no peer.
const peerNamed = (impl) => (typeof impl === 'string' && Object.hasOwn(PEERS, impl) ? PEERS[impl] : undefined);
const peerOf = (identity) => (identity.impl ? peerNamed(identity.impl) : ours);

export const isReference = (entry) => isPlainObject(entry);

export { CASE_INBOUNDS };

/** @param {readonly string[]} [supported] the inbounds the case's implementation has */
export function validateInbound(inbound, supported = ['tunnel'], who = 'this case') {
  if (inbound === undefined) return [];
  if (!CASE_INBOUNDS.includes(inbound))
    return [
      {
        field: 'inbound',
        message: `unknown inbound ${JSON.stringify(inbound)}${nearestHint(inbound, CASE_INBOUNDS)}; valid: ${CASE_INBOUNDS.join(', ')}`,
      },
    ];
  if (!supported.includes(inbound))
    return [{ field: 'inbound', message: `${who} has no ${inbound} inbound; it takes ${supported.join(', ')}` }];
  return [];
}

// Every problem with a reference row (an object with impl), as
// { field, message }.
export function validateReference(reference) {
  const peer = peerNamed(reference.impl);
  if (!peer) {
    return [
      {
        field: 'impl',
        message: `unknown implementation ${JSON.stringify(reference.impl)}${nearestHint(reference.impl, IMPLS)}; valid: ${IMPLS.join(', ')}`,
      },
    ];
  }
  const allowed = ['impl', 'label', ...peer.fields, ...(peer.inbounds ? ['inbound'] : [])];
  const problems = Object.keys(reference)
    .filter((field) => !allowed.includes(field))
    .map((field) => ({
      field,
      message: `${peer.impl} takes no field ${JSON.stringify(field)}${nearestHint(field, allowed)}; valid: ${allowed.join(', ')}`,
    }));
  if (reference.label !== undefined && (typeof reference.label !== 'string' || reference.label.trim() === '')) {
    problems.push({ field: 'label', message: 'must be a non-empty string, the name the reports give this row' });
  }
  const inbound = validateInbound(peer.inbounds ? reference.inbound : undefined, peer.inbounds, peer.impl);
  return [...problems, ...inbound, ...peer.validate(reference)];
}

// What the result's case carries to say what it ran: { presets } for a
// chain; for a reference row its impl, the fields it gave and a label.
// A chain with an inbound ({ chain, inbound }) is { presets, inbound }.
export function caseIdentity(entry) {
  if (!isReference(entry)) return { presets: entry };
  if (entry.impl === undefined)
    return { presets: entry.chain, ...(entry.inbound === undefined ? {} : { inbound: entry.inbound }) };
  const peer = peerNamed(entry.impl);
  const fields = [...peer.fields, ...(peer.inbounds ? ['inbound'] : [])];
  const given = Object.fromEntries(
    fields.filter((field) => entry[field] !== undefined).map((field) => [field, entry[field]]),
  );
  return { impl: entry.impl, ...given, label: entry.label ?? peer.label(entry) };
}

// Resolves with { found } (what plan() needs) or { reason }, the one line a
// case skipped for a missing implementation carries: what is missing and
// how to install it.
export async function locatePeer(identity, options) {
  const peer = peerOf(identity);
  const { found, missing } = await peer.locate(identity, options);
  const hint = typeof peer.hint === 'function' ? peer.hint(identity) : peer.hint;
  return found ? { found } : { reason: `not installed: ${missing}; ${hint}` };
}

// What the program of a row that locatePeer() found says its version is
// ({ impl, version }), for the report's header: a row's figures belong to
// the version that made them. Null for a row whose peer does not say, or
// when the program will not.
export async function peerVersion(identity, found) {
  const how = peerOf(identity).version;
  if (!how || !found?.[how.program]) return null;
  const said = await commandOutput(found[how.program], how.args);
  const version = said === null ? null : (how.pattern.exec(said)?.[1] ?? null);
  return { impl: identity.impl, version };
}

// What a reader must know to read a row's figures (the library it measures
// rather than the cipher, say), or undefined.
export const peerNote = (identity) => peerOf(identity).note?.(identity);

export const runsRemotely = (identity) => peerOf(identity).remote !== false;

export const carriesUdp = (identity) => peerOf(identity).carriesUdp?.(identity) === true;

export const withoutUdpReason = (identity) => peerOf(identity).withoutUdp?.(identity);

// The run's password suits every cipher but those with a key format of
// their own (Shadowsocks 2022: base64 of the method's key length): such a
// case gets a fresh key of that format for each run instead.
export async function planPeer(identity, context) {
  const peer = peerOf(identity);
  return peer.plan(identity, { ...context, key: peer.key?.(identity) ?? context.key });
}
