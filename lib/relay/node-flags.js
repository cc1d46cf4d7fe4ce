// The Node flags a relay process is started with: by the runner
// (peers/ours.js), and by the tests and benchmarks that start relays.
//
// A relay's objects are short-lived (reads, records, the closures of a
// connection refused in its first read), but under a crowd of connections
// enough of them outlive a scavenge that V8 doubles the young generation's
// semi-spaces up to its cap (16 MB each on Node 20),
// and keeps them once grown. A bulk transfer leaves them at 4 MB; a storm of
// 3,000 hostile connections grew them to 16, 24 MB of the +25 to +37 MB it
// added to a server's RSS. Capped at 4 MB, what a transfer reaches anyway,
// the storm added +15 to +23 MB, and a transfer takes as many collections
// as before (docs/notes/reliability.md, benchmark/programs/storm-rss.js and relay-gc.js).
//
// It is a flag of the node process: once running, a relay cannot cap its
// own young generation (v8.setFlagsFromString does not resize a heap that
// is already set up), so whoever starts one passes it; a relay started by
// hand without it is started again with it (lib/cli/relay-node-flags.js).
//
// And TurboFan compiles on the relay's own thread, not in the background:
// process.exit() joins V8's worker threads, and a background compile job
// that needs a collection waits for the main thread, which waits for it
// (nodejs/node#54918, open). A relay server stopped by SIGTERM hung so,
// forever, beside a test suite on 2026-11-28 (gdb: the main thread in
// NodePlatform::Shutdown, a worker in CollectionBarrier::
// AwaitCollectionBackground under OptimizingCompileDispatcher). With the
// flag, aes-128-gcm carried 1.02x [0.96-1.07] the bulk bitrate, 8 rounds,
// and spent 1.02x [0.95-1.10] the CPU per new connection, 6 rounds
// (docs/notes/reliability.md).
export const RELAY_NODE_FLAGS = ['--max-semi-space-size=4', '--no-concurrent-recompilation'];

// The old generation grows as V8 decides, up to four times its live size
// before the next mark-compact. Held to 1.5 (--heap-growing-percent=50), a
// 3,000-connection storm grew a server +8 to +9 MB instead of +17, but
// under a crowd of new connections a relay then mark-compacted every 220
// ms, and each one dropped the compiled code of the closures a connection
// makes, compiled again by the next ones: 7 to 14 % more CPU per new
// connection (docs/notes/reliability.md).
