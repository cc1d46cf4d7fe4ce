// What a chain asks of the process that carries it, read from its presets
// in the catalogue the caller loaded.

// rc4-md5 and bf-cfb live in OpenSSL 3's legacy provider: a relay process
// carrying them must be started with node --openssl-legacy-provider.
export const chainNeedsLegacyProvider = (catalogue, chain) =>
  chain.some((entry) => catalogue.named(entry.name)?.needsLegacyProvider?.(entry.params ?? {}));

// What is wrong with a password for this chain (one line), or undefined.
export function chainPasswordProblem(catalogue, chain, password) {
  for (const entry of chain) {
    const problem = catalogue.named(entry.name)?.password?.problem(entry.params ?? {}, password);
    if (problem) return problem;
  }
  return undefined;
}

// A fresh password that a chain with a preset of its own key format takes;
// undefined when any password will do.
export function newChainPassword(catalogue, chain) {
  const entry = chain.find((candidate) => catalogue.named(candidate.name)?.password);
  return entry ? catalogue.named(entry.name).password.generate(entry.params ?? {}) : undefined;
}

// False for a chain whose bytes can be changed on the way unnoticed (no
// preset in it authenticates): bit flips in a stream cipher's ciphertext
// redirect a connection to another port.
export const chainIsAuthenticated = (catalogue, chain) =>
  chain.some((entry) => {
    const { authenticated } = catalogue.named(entry.name) ?? {};
    return typeof authenticated === 'function' ? authenticated(entry.params ?? {}) : authenticated === true;
  });

// The chain as a run's relays get it: a preset that needs files made for
// the run (tls: a certificate its server presents and its client trusts)
// takes them from makeFiles(), which a run calls at most once, and only
// for a chain that asks.
export function chainForRun(catalogue, chain, makeFiles) {
  let files = null;
  const once = () => (files ??= makeFiles());
  return chain.map((entry) => {
    const forRun = catalogue.named(entry.name)?.forRun;
    return forRun ? { ...entry, params: forRun(entry.params ?? {}, once) } : entry;
  });
}
