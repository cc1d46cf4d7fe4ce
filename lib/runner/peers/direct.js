// The machine's ceiling: the traffic engine's client straight to its
// server on the target port, no relay in between.
export default {
  impl: 'direct',
  fields: [],
  validate: () => [],
  label: () => 'direct (no relay)',
  locate: async () => ({ found: {} }),
  plan: async (reference, { ports }) => ({ relays: [], entryPort: ports.target }),
};
