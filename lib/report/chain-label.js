// The label lives with the presets, so the runner's peers name chains the
// same way the reports do.
export { chainLabel } from '../presets/chain-label.js';
