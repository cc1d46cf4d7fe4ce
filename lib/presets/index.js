import ssAeadCipher from './ss-aead-cipher.js';
import ssBase from './ss-base.js';
import ssStreamCipher from './ss-stream-cipher.js';

// Every preset is a module with the same shape:
//   name, summary, params: { key: { required, values } },
//   needsLegacyProvider?(params),
//   prepare(params, { password }) -> (connection) -> per-connection stages
//     clientEncode / serverDecode / serverEncode / clientDecode (data, push)
// A new preset is a new file listed here; the relay and runner never change.
export const PRESETS = Object.fromEntries([ssBase, ssStreamCipher, ssAeadCipher].map((p) => [p.name, p]));

const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

// Returns every problem with a chain as { field, message }; [] when valid.
export function validateChain(chain) {
  if (!Array.isArray(chain)) return [{ field: 'presets', message: 'must be a JSON array of presets' }];
  if (chain.length === 0) return [{ field: 'presets', message: 'must name at least one preset, starting with ss-base' }];
  const problems = [];
  chain.forEach((entry, i) => {
    const at = `presets[${i}]`;
    if (!isPlainObject(entry)) {
      problems.push({ field: at, message: 'must be an object like {"name":"ss-base"}' });
      return;
    }
    const preset = PRESETS[entry.name];
    if (!preset) {
      problems.push({
        field: `${at}.name`,
        message: `unknown preset ${JSON.stringify(entry.name)}; valid: ${Object.keys(PRESETS).join(', ')}`,
      });
      return;
    }
    if (entry.params !== undefined && !isPlainObject(entry.params)) {
      problems.push({ field: `${at}.params`, message: 'must be an object' });
      return;
    }
    const params = entry.params ?? {};
    for (const [key, spec] of Object.entries(preset.params)) {
      const value = params[key];
      if (value === undefined) {
        if (spec.required) problems.push({ field: `${at}.params.${key}`, message: `missing; valid: ${spec.values.join(', ')}` });
      } else if (spec.values && !spec.values.includes(value)) {
        problems.push({
          field: `${at}.params.${key}`,
          message: `unknown ${key} ${JSON.stringify(value)}; valid: ${spec.values.join(', ')}`,
        });
      }
    }
    for (const key of Object.keys(params)) {
      if (!(key in preset.params)) {
        const known = Object.keys(preset.params);
        problems.push({
          field: `${at}.params.${key}`,
          message: `${entry.name} takes no parameter ${JSON.stringify(key)}${known.length ? `; valid: ${known.join(', ')}` : ''}`,
        });
      }
    }
  });
  if (problems.length === 0 && chain[0].name !== 'ss-base') {
    problems.push({ field: 'presets[0].name', message: 'a chain must start with ss-base, which carries the target address' });
  }
  return problems;
}

// rc4-md5 and bf-cfb live in OpenSSL 3's legacy provider: a relay process
// carrying them must be started with node --openssl-legacy-provider.
export const chainNeedsLegacyProvider = (chain) =>
  chain.some((entry) => PRESETS[entry.name]?.needsLegacyProvider?.(entry.params ?? {}));

const passThrough = (data, push) => push(data);

// Builds, once per process, a factory of per-connection pipelines. Encoding
// runs the chain in order; decoding runs it backwards, so the server peels
// off what the client put on last. Each direction is composed once per
// connection around its sink, so a read costs no closure allocation.
export function prepareChain(chain, { password }) {
  const factories = chain.map((entry) => PRESETS[entry.name].prepare(entry.params ?? {}, { password }));
  return (role, connection) => {
    const stages = factories.map((create) => create(connection));
    const pick = (name) => stages.map((stage) => stage[name] ?? passThrough);
    const encoders = pick(role === 'client' ? 'clientEncode' : 'serverEncode');
    const decoders = pick(role === 'client' ? 'clientDecode' : 'serverDecode').reverse();
    return {
      encoder: (sink) => compose(encoders, sink),
      decoder: (sink) => compose(decoders, sink),
    };
  };
}

function compose(stages, sink) {
  let next = sink;
  for (let i = stages.length - 1; i >= 0; i--) {
    const stage = stages[i];
    const after = next;
    next = (data) => stage(data, after);
  }
  return next;
}
