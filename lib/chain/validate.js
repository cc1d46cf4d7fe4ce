import { nearestHint } from '../nearest-name.js';
import { isPlainObject } from '../plain-object.js';
import { PRESET_NAMES } from '../presets/registry.js';

// A chain is what cases.js and `relay --presets` name: an array of
// { name, params }. Its rules live here, once, for the relay, the runner and
// the ciphers command; each preset's own rules live in its file. A name not
// in the caller's catalogue is unknown, named beside every preset there is.

const addressPresets = (catalogue) =>
  catalogue
    .all()
    .filter((preset) => preset.roles.includes('address'))
    .map((p) => p.name);
const own = (object, key) => (Object.hasOwn(object, key) ? object[key] : undefined);
const ENTRY_KEYS = ['name', 'params'];

// Returns every problem with a chain as { field, message }; [] when valid.
export function validateChain(catalogue, chain) {
  if (!Array.isArray(chain)) return [{ field: 'presets', message: 'must be a JSON array of presets' }];
  if (chain.length === 0) {
    return [
      {
        field: 'presets',
        message: `must name at least one preset, starting with an address preset (${addressPresets(catalogue).join(', ')})`,
      },
    ];
  }
  const problems = [];
  chain.forEach((entry, i) => problems.push(...entryProblems(catalogue, entry, `presets[${i}]`)));
  if (problems.length === 0) problems.push(...placementProblems(catalogue, chain));
  return problems;
}

function entryProblems(catalogue, entry, at) {
  if (!isPlainObject(entry)) return [{ field: at, message: 'must be an object like {"name":"ss-base"}' }];
  const preset = catalogue.named(entry.name);
  if (!preset) {
    return [
      {
        field: `${at}.name`,
        message: `unknown preset ${JSON.stringify(entry.name)}${nearestHint(entry.name, PRESET_NAMES)}; valid: ${PRESET_NAMES.join(', ')}`,
      },
    ];
  }
  // A misspelt key ('param') would otherwise read as no params at all and
  // be reported as the params it lacks: say what was mistyped instead.
  const unknownKeys = Object.keys(entry).filter((key) => !ENTRY_KEYS.includes(key));
  if (unknownKeys.length > 0) {
    return unknownKeys.map((key) => ({
      field: `${at}.${key}`,
      message: `a preset takes no key ${JSON.stringify(key)}${nearestHint(key, ENTRY_KEYS)}; valid: ${ENTRY_KEYS.join(', ')}`,
    }));
  }
  if (entry.params !== undefined && !isPlainObject(entry.params))
    return [{ field: `${at}.params`, message: 'must be an object' }];
  const params = entry.params ?? {};
  const problems = [];
  for (const [key, spec] of Object.entries(preset.params)) {
    const value = own(params, key);
    const message =
      value === undefined ? (spec.required ? missingMessage(spec) : undefined) : valueProblem(key, spec, value);
    if (message) problems.push({ field: `${at}.params.${key}`, message });
  }
  if (problems.length === 0 && preset.paramsProblems) {
    problems.push(
      ...preset.paramsProblems(params).map(({ param, message }) => ({ field: `${at}.params.${param}`, message })),
    );
  }
  for (const key of Object.keys(params)) {
    if (!Object.hasOwn(preset.params, key)) {
      const known = Object.keys(preset.params);
      problems.push({
        field: `${at}.params.${key}`,
        message: `${entry.name} takes no parameter ${JSON.stringify(key)}${nearestHint(key, known)}${known.length ? `; valid: ${known.join(', ')}` : ''}`,
      });
    }
  }
  return problems;
}

const missingMessage = (spec) => `missing; ${spec.values ? `valid: ${spec.values.join(', ')}` : spec.description}`;

function valueProblem(key, spec, value) {
  if (spec.values && !spec.values.includes(value))
    return `unknown ${key} ${JSON.stringify(value)}${nearestHint(value, spec.values)}; valid: ${spec.values.join(', ')}`;
  return spec.check?.(value);
}

// Rules every chain obeys, whatever its presets: blinksocks 3.3.0 starts
// with any of these broken chains and fails at the first byte; ours says why
// before anything starts.
function placementProblems(catalogue, chain) {
  const presets = chain.map((entry) => catalogue.named(entry.name));
  const problems = [];
  const withRole = (role) => presets.flatMap((preset, i) => (preset.roles.includes(role) ? [i] : []));
  const addresses = withRole('address');
  // An address preset with rules of its own (blinksocks-mux) says where it
  // goes itself, naming the chain's valid order.
  const placed = presets.map((preset, i) => preset.placement?.(chain, i, presets));
  const ownRules = addresses.filter((i) => placed[i]);
  if (ownRules.length > 0) {
    for (const i of ownRules) problems.push({ field: `presets[${i}].name`, message: placed[i] });
  } else if (addresses.length === 0) {
    problems.push({
      field: 'presets',
      message: `no address preset: a chain starts with one of ${addressPresets(catalogue).join(', ')}, which carries the target address`,
    });
  } else if (addresses.length > 1) {
    problems.push({
      field: `presets[${addresses[1]}].name`,
      message: `a second address preset (${chain[addresses[1]].name}): a chain carries one target address`,
    });
  } else if (addresses[0] !== 0) {
    problems.push({
      field: 'presets[0].name',
      message: `${chain[addresses[0]].name} carries the target address and must come first`,
    });
  }
  const ciphers = withRole('cipher');
  if (ciphers.length > 1) {
    problems.push({
      field: `presets[${ciphers[1]}].name`,
      message: `a second cipher preset (${chain[ciphers[1]].name} after ${chain[ciphers[0]].name}): a chain encrypts once`,
    });
  }
  const transports = withRole('transport');
  const disguises = withRole('disguise');
  if (transports.length > 0 && disguises.length > 0) {
    // Each shapes the wire as something else: the order the transport rules
    // would suggest puts the disguise inside, which is no valid chain.
    const [i] = disguises;
    const without = (list) => list.filter((_, k) => k !== i);
    const carriers = transports.map((k) => chain[k].name).join(' + ');
    return [
      ...problems,
      {
        field: `presets[${i}].name`,
        message: `${chain[i].name} disguises the wire, and ${carriers} ${transports.length > 1 ? 'carry' : 'carries'} it: a chain takes one of them; without ${chain[i].name}, in order: ${validOrder(without(chain), without(presets)).join(', ')}`,
      },
    ];
  }
  problems.push(...transportProblems(chain, presets, transports));
  disguises.forEach((i) => {
    if (i !== chain.length - 1)
      problems.push({
        field: `presets[${i}].name`,
        message: `${chain[i].name} disguises the wire and must be the last preset`,
      });
  });
  placed.forEach((message, i) => {
    if (message && !ownRules.includes(i)) problems.push({ field: `presets[${i}].name`, message });
  });
  return problems;
}

// Transports come after every other preset, each followed only by one that
// may carry it (its `inside`): [vless, ws, tls], not [vless, tls, ws]. A
// misplaced one is named with the order that would be valid.
function transportProblems(chain, presets, transports) {
  const carries = (outer, inner) => presets[inner].inside?.includes(chain[outer].name) === true;
  for (const [k, i] of transports.entries()) {
    const { name } = chain[i];
    for (const j of transports.slice(0, k)) {
      if (chain[j].name === name)
        return [{ field: `presets[${i}].name`, message: `a second ${name}: a chain is carried by one` }];
      if (!carries(i, j) && !carries(j, i)) {
        return [
          {
            field: `presets[${i}].name`,
            message: `${chain[j].name} and ${name} cannot carry each other: a chain takes one of them`,
          },
        ];
      }
    }
  }
  for (const i of transports) {
    const inside = presets[i].inside ?? [];
    if (i + 1 === chain.length || inside.includes(chain[i + 1].name)) continue;
    const { name } = chain[i];
    const rule =
      inside.length === 0
        ? `${name} carries the whole chain and must be the last preset`
        : `${name} carries the chain and comes after every other preset, where only ${inside.join(' or ')} may follow it`;
    return [{ field: `presets[${i}].name`, message: `${rule}; in order: ${validOrder(chain, presets).join(', ')}` }];
  }
  return [];
}

// The chain's names with its transports moved to the end, those that other
// transports carry before those that carry them.
function validOrder(chain, presets) {
  const order = (i) => (presets[i].roles.includes('transport') ? (presets[i].inside?.length ? 1 : 2) : 0);
  return chain
    .map((entry, i) => ({ name: entry.name, rank: order(i), i }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map(({ name }) => name);
}
