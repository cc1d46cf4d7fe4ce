const passThrough = (data, push) => push(data);
const acceptEverySalt = { add: () => true };

// Whether a chain entry's preset wants each write joined (joinsWrites).
const joinsWrites = (preset, entry) => {
  const joins = preset.joinsWrites;
  return typeof joins === 'function' ? joins(entry.params ?? {}) : Boolean(joins);
};

// Builds, once per process, a factory of per-connection pipelines. Encoding
// runs the chain in order; decoding runs it backwards, so the server peels
// off what the client put on last. Each direction is composed once per
// connection around its sink, so a read costs no closure allocation.
// `now` (milliseconds, Date.now by default) is the clock of the presets
// whose handshakes carry a time, so a test can move it.
export function prepareChain(catalogue, chain, { password, salts = acceptEverySalt, now = Date.now }) {
  const presets = chain.map((entry) => catalogue.named(entry.name));
  const factories = chain.map((entry, i) => presets[i].prepare(entry.params ?? {}, { password, now }));
  const joining = chain.map((entry, i) => i > 0 && joinsWrites(presets[i], entry));
  const joins = joining.some(Boolean);
  const last = factories.length - 1;
  return (role, connection) => {
    // entries[i] feeds stage i of the encode direction; a stage's reply
    // enters at i + 1, past itself. Filled in when the encoder is composed.
    let entries = [];
    const layers = {};
    const hold = createHold(factories.length);
    const { target, onTarget, divert } = connection;
    // One object of one shape per stage, not a spread of `connection`:
    // a spread made a dictionary of 1.2 KB per stage and connection.
    const stages = factories.map((create, i) =>
      create({
        target,
        onTarget,
        divert,
        salts,
        layers,
        reply: (data) => entries[i + 1](data),
        holding: (bytes) => hold.set(i, bytes),
      }),
    );
    const pick = (name) => stages.map((stage) => stage[name] ?? passThrough);
    return {
      encoder: (sink) => {
        const encoders = pick(role === 'client' ? 'clientEncode' : 'serverEncode');
        entries = joins ? composeJoining(encoders, sink, joining) : compose(encoders, sink);
        return entries[0];
      },
      decoder: (sink) => compose(pick(role === 'client' ? 'clientDecode' : 'serverDecode').reverse(), sink)[0],
      decodeEnded: () => {
        for (let i = last; i >= 0; i--) stages[i].decodeEnded?.();
      },
      // Each end record goes through the stages after its own.
      encodeEnded: () => stages.forEach((stage, i) => stage.encodeEnded?.(entries[i + 1])),
      // What the encode direction holds back (connection.holding), and a
      // way to wait until it holds nothing.
      held: hold.total,
      whenReleased: hold.whenReleased,
    };
  };
}

// The bytes each of `count` stages says it holds back, and who waits for
// none.
function createHold(count) {
  let bytes = null;
  let total = 0;
  let waiting = [];
  return {
    set(stage, held) {
      bytes ??= new Array(count).fill(0);
      total += held - bytes[stage];
      bytes[stage] = held;
      if (total > 0 || waiting.length === 0) return;
      const callbacks = waiting;
      waiting = [];
      for (const callback of callbacks) callback();
    },
    total: () => total,
    whenReleased(callback) {
      if (total === 0) callback();
      else waiting.push(callback);
    },
  };
}

// Returns [entry into stage 0, entry into stage 1, ..., the sink].
// Each entry is made before the array that holds it is filled: an array
// of the chain's length made first and filled with the closures after
// kept a connection's objects alive through scavenges on Node 20 and 22,
// why is not known (docs/notes/gc-promotion.md). With this order the
// aes-128-gcm server promoted 0.4 to 3.7 KB a new connection on Node 20
// and 22, 6.4 to 11 KB before.
function compose(stages, sink) {
  const entries = [];
  let after = sink;
  for (let i = stages.length - 1; i >= 0; i--) {
    const stage = stages[i];
    const next = after;
    after = (data) => stage(data, next);
    entries.push(after);
  }
  entries.reverse();
  entries.push(sink);
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
