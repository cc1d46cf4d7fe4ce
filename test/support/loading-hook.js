import { register } from 'node:module';

// Preloaded into the CLI by tests (node --import this-file bin/cipherbench.js)
// to see its start-up from outside: a load hook that, when the bin asks for
// lib/cli/main.js, writes CIPHERBENCH_TEST_LOADING (a file path) and then
// holds that load for CIPHERBENCH_TEST_HOLD_MS. The bin asks for main.js
// right after its first line holds SIGINT and SIGTERM, so the file appears
// the moment the CLI can catch them: before then Node is still bootstrapping
// (over 0.46 s on a loaded 2-core machine), when no Node program can.
// With CIPHERBENCH_TEST_MODULE_LOG (a file path) it also appends the URL of
// every file the process loads there, one a line.
register('./loading-hook-thread.js', import.meta.url, {
  data: {
    marker: process.env.CIPHERBENCH_TEST_LOADING,
    holdMs: Number(process.env.CIPHERBENCH_TEST_HOLD_MS ?? 0),
    moduleLog: process.env.CIPHERBENCH_TEST_MODULE_LOG,
  },
});
