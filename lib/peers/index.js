import bareNode from './bare-node.js';
import blinksocks from './blinksocks.js';
import command from './command.js';
import direct from './direct.js';
import { isPlainObject } from '../plain-object.js';
import { CASE_INBOUNDS } from './inbounds.js';
import { nearestHint } from '../nearest-name.js';
import ours from './ours.js';
import plain from './plain.js';
import shadowsocksLibev from './shadowsocks-libev.js';
import shadowsocksRust from './shadowsocks-rust.js';
import ssr from './ssr.js';
import trojanGfw from './trojan-gfw.js';
import v2ray from './v2ray.js';

// A case is a preset chain, run by our relays, or a reference row naming
// another implementation: { impl: 'shadowsocks-libev', method }. Every
// implementation is a module here with the same shape:
//   impl      the name a case gives
//   fields    the fields a case may give besides impl (and label)
//   validate(reference) -> [{ field, message }], [] when valid
//   label(reference) -> 'shadowsocks-libev aes-256-gcm', the row's name
//   hint      how to install it, for a case it must skip: a string, or
//             hint(reference) when it depends on the row
//   locate(reference, { env, cwd }) -> { found } | { missing }: whether
//             it is installed, and where
//   plan(reference, { ports, key, found, serverHost }) -> { relays,
//             entryPort, entryHost?, cleanup? }: relays are [{ role:
//             'server' | 'client', label, file, args, readiness }] to start
//             on the run's ports (none for direct), readiness as
//             processes.js takes it; the server listens on serverBind
//             (default serverHost) and the client reaches it at
//             serverHost: 127.0.0.1, the server's side of a --link, or a
//             --remote host; entryHost:entryPort is where the traffic
//             engine's client connects (entryHost 127.0.0.1 unless said)
//   remote    false for an implementation whose server cannot be started
//             on a --remote host (it runs from files on this one)
//   carriesUdp?(reference) -> true when the row relays UDP too (run --udp;
//             the plan then gets udp: true and starts both halves with it);
//             absent: TCP only
//   withoutUdp?(reference) -> why a row carriesUdp says no to has no UDP
//             form, a phrase the refusal gives in brackets
//   key?(reference) -> a fresh key when the implementation takes one of
//             its own format for this row (Shadowsocks 2022), else undefined
// A chain case (an array of presets) runs on ours.js, which has the same
// shape but no impl, label or hint: a case names it by being a chain, the
// reports label it by its presets, and it is always installed.
// The runner starts, waits for, measures, costs and stops every one alike.
const PEERS = Object.fromEntries([direct, plain, bareNode, shadowsocksLibev, shadowsocksRust, blinksocks, v2ray, trojanGfw, ssr, command].map((peer) => [peer.impl, peer]));
export const IMPLS = Object.keys(PEERS);
// Own names only: a case's impl of "toString" names no peer.
const peerNamed = (impl) => (typeof impl === 'string' && Object.hasOwn(PEERS, impl) ? PEERS[impl] : undefined);
const peerOf = (identity) => (identity.impl ? peerNamed(identity.impl) : ours);

export const isReference = (entry) => isPlainObject(entry);

export { CASE_INBOUNDS };

export function validateInbound(inbound, supported = ['tunnel'], who = 'this case') {
  if (inbound === undefined) return [];
  if (!CASE_INBOUNDS.includes(inbound)) return [{ field: 'inbound', message: `unknown inbound ${JSON.stringify(inbound)}${nearestHint(inbound, CASE_INBOUNDS)}; valid: ${CASE_INBOUNDS.join(', ')}` }];
  if (!supported.includes(inbound)) return [{ field: 'inbound', message: `${who} has no ${inbound} inbound; it takes ${supported.join(', ')}` }];
  return [];
}

// Every problem with a reference row (an object with impl), as
// { field, message }.
export function validateReference(reference) {
  const peer = peerNamed(reference.impl);
  if (!peer) {
    return [{ field: 'impl', message: `unknown implementation ${JSON.stringify(reference.impl)}${nearestHint(reference.impl, IMPLS)}; valid: ${IMPLS.join(', ')}` }];
  }
  const allowed = ['impl', 'label', ...peer.fields, ...(peer.inbounds ? ['inbound'] : [])];
  const problems = Object.keys(reference)
    .filter((field) => !allowed.includes(field))
    .map((field) => ({ field, message: `${peer.impl} takes no field ${JSON.stringify(field)}${nearestHint(field, allowed)}; valid: ${allowed.join(', ')}` }));
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
  if (entry.impl === undefined) return { presets: entry.chain, ...(entry.inbound === undefined ? {} : { inbound: entry.inbound }) };
  const peer = peerNamed(entry.impl);
  const fields = [...peer.fields, ...(peer.inbounds ? ['inbound'] : [])];
  const given = Object.fromEntries(fields.filter((field) => entry[field] !== undefined).map((field) => [field, entry[field]]));
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
