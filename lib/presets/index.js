import aeadRandomCipher from './aead-random-cipher.js';
import baseAuth from './base-auth.js';
import obfsHttp from './obfs/http.js';
import obfsRandomPadding from './obfs/random-padding.js';
import obfsTls12Ticket from './obfs/tls1.2-ticket.js';
import ssAeadCipher from './ss-aead-cipher.js';
import ssBase from './ss-base.js';
import simpleObfs from './simple-obfs.js';
import ss2022 from './ss-2022/ss-2022.js';
import ssStreamCipher from './ss-stream-cipher.js';
import { authAes128Md5, authAes128Sha1 } from './ssr/auth-aes128.js';
import { authChainA, authChainB } from './ssr/auth-chain.js';
import v2rayVmess from './v2ray-vmess.js';

// Every preset is a module with the same shape:
//   name, summary,
//   roles: what it is in a chain, any of
//     'address'  carries the target (exactly one per chain, first),
//     'cipher'   encrypts the stream (at most one per chain),
//     'disguise' shapes the wire as another protocol (last only),
//   params: { key: { required, values?, description?, check?(value) -> message | undefined } },
//   placement?(chain, index) -> message | undefined (rules beyond the roles),
//   joinsWrites?: true, or joinsWrites(params) when it depends on them, for
//     a preset that frames what it is given (TLS records, padding frames):
//     it gets each write of the stages before it as one buffer, not piece
//     by piece,
//   authenticated?: true (or authenticated(params) when it depends on them)
//     when the preset detects any change to the bytes it carries (an AEAD,
//     an HMAC a chunk); a chain is authenticated when one of its presets is,
//     and a relay serves an unauthenticated chain beyond loopback only when
//     told to (cli: --allow-unauthenticated),
//   needsLegacyProvider?(params),
//   password?: { problem(params, password) -> message | undefined,
//                generate(params) -> a fresh password it takes }, for a
//     preset whose key is not any password (SIP022's base64 PSK),
//   prepare(params, { password }) -> (connection) -> per-connection stages
//     (password: a string, or a Buffer of the bytes given when the key the
//     person typed is not UTF-8; see cli/raw-argument.js)
//     clientEncode / serverDecode / serverEncode / clientDecode (data, push)
//     and optionally decodeEnded(): called when the peer's FIN arrives;
//     throws protocolError when the bytes so far stop inside a record (or
//     lack the protocol's end record), so a cut stream is passed on as a
//     reset, not as a clean end; and encodeEnded(push): called at the
//     local side's FIN, before it is passed on, to push an end record
//     (VMess's empty chunk)
// `connection` gives a stage what it may need beyond its own bytes:
//   target (client) / onTarget(address) (server): the address to carry;
//   reply(data): bytes toward the peer from just past this stage (through the
//     stages nearer the wire), for handshakes that answer or release held data;
//   salts.add(salt) -> false when the salt was seen before: a decoder refuses
//     the connection then (a replay); an encoder records its own salts so a
//     reflected stream is refused too;
//   layers: one object per connection that every stage of it shares, where a
//     stage publishes what the stages before it may read (ss-stream-cipher
//     publishes its key and the client's IV as layers.streamCipher, which
//     ShadowsocksR's protocols authenticate their handshake with).
// A new preset is a new file listed here; the relay and runner never change.
export const PRESETS = Object.freeze(Object.fromEntries([
  ssBase, baseAuth, v2rayVmess, ss2022, ssStreamCipher, ssAeadCipher, aeadRandomCipher,
  authAes128Md5, authAes128Sha1, authChainA, authChainB,
  obfsRandomPadding, obfsHttp, obfsTls12Ticket, simpleObfs,
].map((p) => [p.name, p])));

const ADDRESS_PRESETS = () => Object.values(PRESETS).filter((preset) => preset.roles.includes('address')).map((p) => p.name);

export const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const own = (object, key) => (Object.hasOwn(object, key) ? object[key] : undefined);

export const presetNamed = (name) => (typeof name === 'string' ? own(PRESETS, name) : undefined);

// Returns every problem with a chain as { field, message }; [] when valid.
export function validateChain(chain) {
  if (!Array.isArray(chain)) return [{ field: 'presets', message: 'must be a JSON array of presets' }];
  if (chain.length === 0) {
    return [{ field: 'presets', message: `must name at least one preset, starting with an address preset (${ADDRESS_PRESETS().join(', ')})` }];
  }
  const problems = [];
  chain.forEach((entry, i) => problems.push(...entryProblems(entry, `presets[${i}]`)));
  if (problems.length === 0) problems.push(...placementProblems(chain));
  return problems;
}

function entryProblems(entry, at) {
  if (!isPlainObject(entry)) return [{ field: at, message: 'must be an object like {"name":"ss-base"}' }];
  const preset = presetNamed(entry.name);
  if (!preset) {
    return [{ field: `${at}.name`, message: `unknown preset ${JSON.stringify(entry.name)}; valid: ${Object.keys(PRESETS).join(', ')}` }];
  }
  if (entry.params !== undefined && !isPlainObject(entry.params)) return [{ field: `${at}.params`, message: 'must be an object' }];
  const params = entry.params ?? {};
  const problems = [];
  for (const [key, spec] of Object.entries(preset.params)) {
    const value = own(params, key);
    const message = value === undefined ? (spec.required ? missingMessage(spec) : undefined) : valueProblem(key, spec, value);
    if (message) problems.push({ field: `${at}.params.${key}`, message });
  }
  for (const key of Object.keys(params)) {
    if (!Object.hasOwn(preset.params, key)) {
      const known = Object.keys(preset.params);
      problems.push({
        field: `${at}.params.${key}`,
        message: `${entry.name} takes no parameter ${JSON.stringify(key)}${known.length ? `; valid: ${known.join(', ')}` : ''}`,
      });
    }
  }
  return problems;
}

const missingMessage = (spec) => `missing; ${spec.values ? `valid: ${spec.values.join(', ')}` : spec.description}`;

function valueProblem(key, spec, value) {
  if (spec.values && !spec.values.includes(value)) return `unknown ${key} ${JSON.stringify(value)}; valid: ${spec.values.join(', ')}`;
  return spec.check?.(value);
}

// Rules every chain obeys, whatever its presets: blinksocks 3.3.0 starts
// with any of these broken chains and fails at the first byte; ours says why
// before anything starts.
function placementProblems(chain) {
  const presets = chain.map((entry) => presetNamed(entry.name));
  const problems = [];
  const withRole = (role) => presets.flatMap((preset, i) => (preset.roles.includes(role) ? [i] : []));
  const addresses = withRole('address');
  if (addresses.length === 0) {
    problems.push({ field: 'presets', message: `no address preset: a chain starts with one of ${ADDRESS_PRESETS().join(', ')}, which carries the target address` });
  } else if (addresses.length > 1) {
    problems.push({ field: `presets[${addresses[1]}].name`, message: `a second address preset (${chain[addresses[1]].name}): a chain carries one target address` });
  } else if (addresses[0] !== 0) {
    problems.push({ field: 'presets[0].name', message: `${chain[addresses[0]].name} carries the target address and must come first` });
  }
  const ciphers = withRole('cipher');
  if (ciphers.length > 1) {
    problems.push({ field: `presets[${ciphers[1]}].name`, message: `a second cipher preset (${chain[ciphers[1]].name} after ${chain[ciphers[0]].name}): a chain encrypts once` });
  }
  withRole('disguise').forEach((i) => {
    if (i !== chain.length - 1) problems.push({ field: `presets[${i}].name`, message: `${chain[i].name} disguises the wire and must be the last preset` });
  });
  presets.forEach((preset, i) => {
    const message = preset.placement?.(chain, i);
    if (message) problems.push({ field: `presets[${i}].name`, message });
  });
  return problems;
}

// rc4-md5 and bf-cfb live in OpenSSL 3's legacy provider: a relay process
// carrying them must be started with node --openssl-legacy-provider.
export const chainNeedsLegacyProvider = (chain) =>
  chain.some((entry) => presetNamed(entry.name)?.needsLegacyProvider?.(entry.params ?? {}));

// What is wrong with a password for this chain (one line), or undefined.
export function chainPasswordProblem(chain, password) {
  for (const entry of chain) {
    const problem = presetNamed(entry.name)?.password?.problem(entry.params ?? {}, password);
    if (problem) return problem;
  }
  return undefined;
}

// A fresh password that a chain with a preset of its own key format takes;
// undefined when any password will do.
export function newChainPassword(chain) {
  const entry = chain.find((candidate) => presetNamed(candidate.name)?.password);
  return entry ? presetNamed(entry.name).password.generate(entry.params ?? {}) : undefined;
}

// False for a chain whose bytes can be changed on the way unnoticed (no
// preset in it authenticates): bit flips in a stream cipher's ciphertext
// redirect a connection to another port.
export const chainIsAuthenticated = (chain) => chain.some((entry) => {
  const { authenticated } = presetNamed(entry.name) ?? {};
  return typeof authenticated === 'function' ? authenticated(entry.params ?? {}) : authenticated === true;
});

const passThrough = (data, push) => push(data);
const acceptEverySalt = { add: () => true };

// Whether a chain entry's preset wants each write joined (joinsWrites).
const joinsWrites = (entry) => {
  const joins = presetNamed(entry.name).joinsWrites;
  return typeof joins === 'function' ? joins(entry.params ?? {}) : Boolean(joins);
};

// Builds, once per process, a factory of per-connection pipelines. Encoding
// runs the chain in order; decoding runs it backwards, so the server peels
// off what the client put on last. Each direction is composed once per
// connection around its sink, so a read costs no closure allocation.
export function prepareChain(chain, { password, salts = acceptEverySalt }) {
  const factories = chain.map((entry) => presetNamed(entry.name).prepare(entry.params ?? {}, { password }));
  const joining = chain.map((entry, i) => i > 0 && joinsWrites(entry));
  return (role, connection) => {
    // entries[i] feeds stage i of the encode direction; a stage's reply
    // enters at i + 1, past itself. Filled in when the encoder is composed.
    let entries = [];
    const layers = {};
    const stages = factories.map((create, i) => create({ ...connection, salts, layers, reply: (data) => entries[i + 1](data) }));
    const pick = (name) => stages.map((stage) => stage[name] ?? passThrough);
    const encoders = pick(role === 'client' ? 'clientEncode' : 'serverEncode');
    const decoders = pick(role === 'client' ? 'clientDecode' : 'serverDecode').reverse();
    return {
      encoder: (sink) => {
        entries = joining.some(Boolean) ? composeJoining(encoders, sink, joining) : compose(encoders, sink);
        return entries[0];
      },
      decoder: (sink) => compose(decoders, sink)[0],
      decodeEnded: () => [...stages].reverse().forEach((stage) => stage.decodeEnded?.()),
      // Each end record goes through the stages after its own.
      encodeEnded: () => stages.forEach((stage, i) => stage.encodeEnded?.(entries[i + 1])),
    };
  };
}

// Returns [entry into stage 0, entry into stage 1, ..., the sink].
function compose(stages, sink) {
  const entries = new Array(stages.length + 1);
  entries[stages.length] = sink;
  for (let i = stages.length - 1; i >= 0; i--) {
    const stage = stages[i];
    const after = entries[i + 1];
    entries[i] = (data) => stage(data, after);
  }
  return entries;
}

// As compose(), but a stage marked in `joining` gets everything the stages
// before it pushed for one write (or one reply) as a single buffer, once
// that write has gone through them: a framing preset (TLS records, padding
// frames) then frames what the application wrote, not each piece a cipher
// pushes (a length, a payload, a tag), as blinksocks' presets, which each
// return one buffer, do.
function composeJoining(stages, sink, joining) {
  const count = stages.length;
  const inner = new Array(count + 1);
  const held = [];
  inner[count] = sink;
  for (let i = count - 1; i >= 0; i--) {
    const stage = stages[i];
    const after = inner[i + 1];
    const run = (data) => stage(data, after);
    if (joining[i]) {
      const queue = [];
      held.unshift({ queue, run });
      inner[i] = (data) => queue.push(data);
    } else {
      inner[i] = run;
    }
  }
  let depth = 0;
  const release = () => {
    for (const { queue, run } of held) {
      while (queue.length > 0) {
        const data = queue.length === 1 ? queue[0] : Buffer.concat(queue);
        queue.length = 0;
        depth += 1;
        try {
          run(data);
        } finally {
          depth -= 1;
        }
      }
    }
  };
  const entry = (enter) => (data) => {
    depth += 1;
    try {
      enter(data);
    } finally {
      depth -= 1;
    }
    if (depth === 0) release();
  };
  return inner.map((enter, i) => (i === count ? enter : entry(enter)));
}
