import { createHash } from 'node:crypto';

// A VMess user is a UUID. Its command key (V2Ray common/protocol/id.go)
// keys both request headers; its alter IDs, a chain of UUIDs derived from
// it, are what legacy-header clients authenticate with.
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const CMD_KEY_SALT = 'c48619fe-8f02-49e0-b9e9-edf763e17e21';
const NEXT_ID_SALT = '16167dc8-16b6-4e6d-b8bb-65dd68113a81';
const NEXT_ID_RETRY_SALT = '533eff8a-4113-4b10-b5ce-0f5d76b98cd2';

const isUuid = (value) => typeof value === 'string' && UUID.test(value);

// The `id` parameter of every preset whose user is a UUID (VMess, VLESS).
export const UUID_ID_PARAM = Object.freeze({
  required: true,
  description: 'the user UUID, e.g. "a3482e88-686a-4a58-8126-99c9df64b7bf"',
  check: (value) =>
    isUuid(value)
      ? undefined
      : `must be a UUID like "a3482e88-686a-4a58-8126-99c9df64b7bf", not ${JSON.stringify(value)}`,
});

export const uuidBytes = (id) => Buffer.from(id.replaceAll('-', ''), 'hex');

export const cmdKey = (uuid) => createHash('md5').update(uuid).update(CMD_KEY_SALT).digest();

// nextID: MD5(previous || salt), re-hashed with more salt in the
// (astronomically unlikely) case it equals the previous ID.
function nextId(previous) {
  const hash = createHash('md5').update(previous).update(NEXT_ID_SALT);
  for (;;) {
    const candidate = hash.copy().digest();
    if (!candidate.equals(previous)) return candidate;
    hash.update(NEXT_ID_RETRY_SALT);
  }
}

export function alterIds(uuid, count) {
  const ids = [];
  let previous = uuid;
  for (let i = 0; i < count; i++) {
    previous = nextId(previous);
    ids.push(previous);
  }
  return ids;
}
