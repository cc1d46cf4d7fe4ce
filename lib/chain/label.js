// A preset chain in a table cell: 'ss-base + ss-aead-cipher(aes-256-gcm)'.
// The text report keeps the full JSON, which is what cases.js holds; tables
// need a label short enough that the numbers beside it stay in one line.
export function chainLabel(presets) {
  return presets.map(presetLabel).join(' + ');
}

function presetLabel({ name, params }) {
  const values = Object.values(params ?? {}).map((value) =>
    typeof value === 'string' ? value : JSON.stringify(value),
  );
  return values.length === 0 ? name : `${name}(${values.join(', ')})`;
}
