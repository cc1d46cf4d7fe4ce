// A JSON object, as cases.js and config files hold: not null, not an array.
export const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
