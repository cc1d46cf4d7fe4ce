import { loadedPresets, loadPresets, plannedPresets } from './registry.js';

// The presets by name (registry.js lists them and says what each one is).
// Importing this module loads them: the whole catalogue, or in a relay
// process the presets of its chain alone.
await loadPresets(plannedPresets());

export const PRESETS = Object.freeze(Object.fromEntries(loadedPresets().map((preset) => [preset.name, preset])));

export { PRESET_NAMES, loadedPresets, presetNamed } from './registry.js';
