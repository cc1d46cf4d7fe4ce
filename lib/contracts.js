// @ts-check
// The shapes that pass between cipherbench's parts, as types that
// `tsc --noEmit` checks (npm run typecheck) in every file marked
// // @ts-check: the result run() resolves with and every report reads,
// the events run() emits as it goes, the module each implementation a
// reference row names is, what a workload (lib/workload/) and a preset
// (lib/presets/) are. What a field of the result or an event means is
// said once, in docs/result.md (each typedef names its section);
// test/unit/contracts.test.js keeps the field lists here and there the
// same, and checks the archived real results field by field against the
// types here. Types only: nothing here runs, and nothing imports it but
// JSDoc.

/**
 * docs/result.md, "The run".
 * @typedef {object} Result
 * @property {number} resultVersion
 * @property {{ name: string, version: string }} tool
 * @property {string} startedAt
 * @property {string} finishedAt
 * @property {number} wallSeconds
 * @property {boolean} complete
 * @property {string | null} interrupted
 * @property {number} rounds
 * @property {'converged' | 'max-rounds' | 'max-time' | null} stopped
 * @property {NoiseFloor | null} noiseFloor
 * @property {Environment} environment
 * @property {WorkloadName} workload
 * @property {RecordedOptions} options
 * @property {string[]} warnings
 * @property {CaseResult[]} cases
 */

/**
 * docs/result.md, "The run": what every run of the result measured, by
 * the name of its workload: one of lib/workload/index.js's WORKLOADS
 * (test/unit/contracts.test.js holds an archived run of each).
 * @typedef {string} WorkloadName
 */

/**
 * @typedef {object} NoiseFloor
 * @property {number} runs
 * @property {number} seconds
 * @property {number} cv
 * @property {number} bits_per_second
 * @property {number[]} values
 */

/**
 * @typedef {object} Environment
 * @property {{ model: string, cores: number, physicalCores: number, aes: boolean | null }} cpu
 * @property {number} memory
 * @property {{ type: string, platform: string, arch: string, release: string, distro: string }} os
 * @property {Record<string, string | undefined>} node
 * @property {{ path: string | null, version: string | null }} iperf3
 * @property {{ path: string, version: string | null }} [wrk] when wrk measured requests
 * @property {Record<string, string>} [peers] each reference row's implementation and the version its program says
 * @property {object} [remote]
 */

/**
 * docs/result.md, "options": what the run was asked for.
 * @typedef {object} RecordedOptions
 * @property {string | null} casesFile
 * @property {'bundled' | 'file' | null} [casesSource] absent in results from before it was recorded, which the reports tell by casesFile
 * @property {'smoke' | 'default' | 'full' | null} mode
 * @property {number} duration
 * @property {number} repeat
 * @property {number | null} seed
 * @property {{ level: number, width: number } | null} confidence
 * @property {number | null} maxRounds
 * @property {number | null} maxTime
 * @property {number} parallel
 * @property {number | null} rate
 * @property {number | null} noiseFloor
 * @property {boolean} reverse
 * @property {boolean} both
 * @property {boolean} latency
 * @property {boolean} ceiling
 * @property {string | null} filter
 * @property {string | null} relativeTo
 * @property {'iperf3' | 'node' | null} engine
 * @property {object | null} link
 * @property {{ destination: string } | null} remote
 * @property {boolean} udp
 * @property {number | null} length
 * @property {number | null} maxLoss
 * @property {boolean} rateSearch
 * @property {{ client: number, server: number, target: number }} ports
 * @property {boolean} requests
 * @property {number | null} concurrency
 * @property {number | null} responseSize
 * @property {number | null} warmup
 * @property {boolean} newConnections
 * @property {number} remeasure
 * @property {string | null} profile
 */

/**
 * docs/result.md, "A case" and "Reference rows": a preset chain's case
 * carries presets; a reference row's, impl, label and the fields its row
 * gave (method, obfs, protocol, ...).
 * @typedef {object} CaseResult
 * @property {number} index
 * @property {object[]} [presets]
 * @property {string} [impl]
 * @property {string} [label]
 * @property {string} [inbound]
 * @property {'ok' | 'failed' | 'skipped'} status
 * @property {string | null} reason
 * @property {'forward' | 'reverse'} direction
 * @property {number | null} parallel
 * @property {CaseRun[]} runs
 * @property {SideSummary | null} sender
 * @property {SideSummary | null} receiver
 * @property {boolean} unstable
 * @property {number | null} width
 * @property {boolean | null} converged
 * @property {number} wallSeconds
 * @property {CaseCost | null} cost
 * @property {{ overhead: number } | null} wire
 * @property {string | null} negotiated
 * @property {object | null} udp
 * @property {{ rtt?: LatencyFigures, connect?: LatencyFigures, udpRtt?: LatencyFigures & { lost: number, lostPercent: number } } | null} latency
 * @property {RequestsSummary | null} requests
 * @property {CaseCeiling | null} ceiling
 * @property {{ runs: number, of: number, reason: string } | null} disturbed
 * @property {Relative | null} relative
 * @property {string[]} warnings
 */

/**
 * A chain's cipher ceiling: each direction's median over its rounds, and
 * (from the rounds on) their min and max. Results from before the rounds
 * lack `rounds` and the min and max.
 * @typedef {object} CaseCeiling
 * @property {number} encryptBps
 * @property {number} decryptBps
 * @property {number} size
 * @property {number} [rounds]
 * @property {number} [encryptMinBps]
 * @property {number} [encryptMaxBps]
 * @property {number} [decryptMinBps]
 * @property {number} [decryptMaxBps]
 * @property {number | null} efficiency
 */

/**
 * A case's sender or receiver: the median run's figures with the spread.
 * @typedef {Side & Interval & { min: number, max: number, cv: number }} SideSummary
 */

/**
 * @typedef {object} Side
 * @property {number} bytes
 * @property {number} seconds
 * @property {number} bits_per_second
 */

/**
 * The median's interval (docs/statistics.md); null low and high for one run.
 * @typedef {object} Interval
 * @property {number | null} low
 * @property {number | null} high
 * @property {number | null} level
 * @property {number | null} coverage
 */

/**
 * A case's relay cost. Results of versions 0 and 1 lack the pair's figure
 * and saturatedRuns (version 2 added them, with --rate): the reports read
 * them as not measured.
 * @typedef {object} CaseCost
 * @property {{ cpuSeconds: number, peakRssBytes: number, cpuSecondsPerGB: number | null } & Interval} client
 * @property {{ cpuSeconds: number, peakRssBytes: number, cpuSecondsPerGB: number | null } & Interval} server
 * @property {{ cpuSecondsPerGB: number | null } & Interval} [pair]
 * @property {number} [saturatedRuns]
 */

/**
 * @typedef {object} LatencyFigures
 * @property {number} count
 * @property {'ms'} unit
 * @property {number} mean
 * @property {number} p50
 * @property {number} p90
 * @property {number} p99
 * @property {number} p999
 * @property {number} max
 */

/**
 * docs/result.md, "requests".
 * @typedef {object} RequestsSummary
 * @property {string} kind
 * @property {number} concurrency
 * @property {boolean} newConnections
 * @property {number} seconds
 * @property {number} warmupSeconds
 * @property {number} ok
 * @property {{ refused: number, reset: number, timeout: number, badResponse: number }} errors
 * @property {number} connections
 * @property {number} requestsPerSecond
 * @property {number} min
 * @property {number} max
 * @property {number | null} low
 * @property {number | null} high
 * @property {number} level
 * @property {number | null} coverage
 * @property {LatencyFigures & { stdev: number }} latency
 * @property {{ client: number, server: number } | null} cpuSecondsPerThousand
 * @property {{ engine: 'wrk' | 'node', cpuSecondsPerThousand: number | null, share: number | null, squeezedRuns: number } | null} generator
 * @property {{ entry: number, server: number | null } | null} [opened] with --new-connections, TCP connections opened to the entry and to the server's port
 */

/**
 * docs/result.md, "relative".
 * @typedef {object} Relative
 * @property {number} to
 * @property {number | null} ratio
 * @property {number | null} low
 * @property {number | null} high
 * @property {number | null} level
 * @property {number | null} rounds
 */

/**
 * docs/result.md, "A run of a case".
 * @typedef {object} CaseRun
 * @property {number} round
 * @property {'ok' | 'failed' | 'skipped'} status
 * @property {string | null} reason
 * @property {Side | null} [sender]
 * @property {Side | null} [receiver]
 * @property {number} wallSeconds
 * @property {{ client: ProcessCost | null, server: ProcessCost | null } | null} cost
 * @property {{ bytes: number, payloadBytes: number, overhead: number }} [wire]
 * @property {{ loadAverage: number | null, idle: number | null, steal: number | null, others: number | null, engineCpu: { client: number, server: number } | null }} [disturbance]
 * @property {{ reason: string, wallSeconds: number }[]} [remeasured]
 * @property {string} [disturbed]
 * @property {boolean} [saturated]
 * @property {string | null} [negotiated]
 * @property {object} [udp]
 * @property {object} [requests]
 * @property {{ files: object | null, top: object | null, reason?: string | null, syscalls: object | null }} [profile]
 */

/**
 * @typedef {object} ProcessCost
 * @property {number} cpuSeconds
 * @property {number} userSeconds
 * @property {number} systemSeconds
 * @property {number} peakRssBytes
 */

/**
 * docs/result.md, "Events": what run({ onEvent }) is called with.
 * @typedef {RunStarted | CeilingStarted | CaseStarted | CaseRemeasured | ProcessStarted | CaseFinished | RoundFinished | NoiseFloorStarted | NoiseFloorFinished} RunEvent
 */
/** @typedef {{ type: 'run-started', result: Result, total: number, cases: number }} RunStarted */
/** @typedef {{ type: 'ceiling-started', presets: object[], position: number, total: number }} CeilingStarted */
/** @typedef {{ type: 'case-started', case: CaseResult, position: number, total: number, round: number, rounds: number | null }} CaseStarted */
/** @typedef {{ type: 'case-remeasured', case: CaseResult, reason: string, wallSeconds: number, attempt: number, attempts: number, added: number, budget: number, position: number, total: number, round: number, rounds: number | null }} CaseRemeasured */
/** @typedef {{ type: 'process-started', index: number, role: string, pid: number, command: string[] }} ProcessStarted */
/** @typedef {{ type: 'case-finished', case: CaseResult, run: CaseRun, position: number, total: number, round: number, rounds: number | null, last: boolean }} CaseFinished */
/** @typedef {{ type: 'round-finished', round: number, rounds: number | null, widest: { index: number, direction: string, width: number } | null }} RoundFinished */
/** @typedef {{ type: 'noise-floor-started', runs: number }} NoiseFloorStarted */
/** @typedef {{ type: 'noise-floor-finished', noiseFloor: NoiseFloor | null }} NoiseFloorFinished */

/**
 * A reference row: { impl, label?, ...the fields its implementation takes }.
 * @typedef {{ impl?: string, label?: string, inbound?: string, [field: string]: any }} Reference
 */

/**
 * One relay process a peer starts for a case.
 * @typedef {object} RelayPlan
 * @property {string} role 'server' or 'client'
 * @property {string} label
 * @property {string} file
 * @property {string[]} args
 * @property {object} [readiness] as lib/process/processes.js takes it
 * @property {Record<string, string>} [env]
 * @property {string} [cwd]
 */

/**
 * What plan() resolves with: relays to start on the run's ports (none for
 * direct), and where the traffic engine's client connects
 * (entryHost:entryPort, entryHost 127.0.0.1 unless said).
 * @typedef {object} PeerPlan
 * @property {RelayPlan[]} relays
 * @property {number} entryPort
 * @property {string} [entryHost]
 * @property {() => void | Promise<void>} [cleanup]
 */

/**
 * What plan() is given: the server listens on serverBind (default
 * serverHost) and the client reaches it at serverHost: 127.0.0.1, the
 * server's side of a --link, or a --remote host.
 * @typedef {object} PeerPlacement
 * @property {{ client: number, server: number, target: number }} ports
 * @property {string} key
 * @property {Record<string, string>} found what locate() found
 * @property {string} [serverHost]
 * @property {string} [serverBind]
 * @property {boolean} [udp] true with run --udp, for a row that carriesUdp
 */

/**
 * An implementation a case can run: one module of lib/peers, which the
 * runner starts, waits for, measures, costs and stops like every other.
 * A chain case runs on ours.js, which has no impl, label or hint: a case
 * names it by being a chain, the reports label it by its presets, and it
 * is always installed.
 * @typedef {object} Peer
 * @property {string} [impl] the name a case gives
 * @property {string[]} fields the fields a case may give besides impl (and label)
 * @property {readonly string[]} [inbounds] the inbounds it has (lib/peers/inbounds.js); absent: tunnel only
 * @property {(reference: Reference) => { field: string, message: string }[]} validate every problem, [] when valid
 * @property {(reference: Reference) => string} [label] the row's name in every report
 * @property {string | ((reference: Reference) => string)} [hint] how to install it, for a case it must skip
 * @property {(reference: Reference, options: { env?: NodeJS.ProcessEnv, cwd?: string }) => Promise<{ found: Record<string, string>, missing?: undefined } | { missing: string, found?: undefined }>} locate whether it is installed, and where
 * @property {(reference: Reference, placement: PeerPlacement) => PeerPlan | Promise<PeerPlan>} plan
 * @property {false} [remote] false when its server cannot be started on a --remote host
 * @property {(reference: Reference) => boolean} [carriesUdp] true when the row relays UDP too; absent: TCP only
 * @property {(reference: Reference) => string | undefined} [withoutUdp] why a row carriesUdp refuses has no UDP form
 * @property {(reference: Reference) => string | undefined} [key] a fresh key of its own format (Shadowsocks 2022)
 * @property {PeerVersion} [version] how its program says its version, for the report's header
 * @property {(reference: Reference) => string | undefined} [note] what a reader must know to read the row's figures, said once in the report
 */

/**
 * A preset (lib/presets/): one module whose default export is this, listed
 * in lib/presets/registry.js. Its roles say where a chain may hold it
 * (lib/chain/validate.js): 'address' carries the target (exactly one, first);
 * 'cipher' encrypts the stream (at most one); 'disguise' shapes the wire as
 * another protocol (last only); 'transport' carries the whole chain (after
 * every other preset; transports stack, the last nearest the wire); 'mux'
 * carries many client connections over one of the chain's (at most one,
 * after the address and cipher presets, or first as the address preset
 * too: blinksocks-mux, whose one stage names every connection a tunnel).
 * A transport has no stages and a mux no other: the relay runs what
 * transport() and multiplex() give. The relay and runner never learn a
 * preset's name.
 * @typedef {object} Preset
 * @property {string} name
 * @property {string} summary
 * @property {string[]} roles any of 'address', 'cipher', 'disguise', 'transport' and 'mux'
 * @property {string[]} [inside] the transports that may carry this one, following it in the chain (ws: ['tls']); a transport without it comes last
 * @property {Record<string, PresetParam>} params
 * @property {(params: object) => { param: string, message: string }[]} [paramsProblems] rules between params
 * @property {(chain: object[], index: number, presets: Preset[]) => string | undefined} [placement] rules beyond the roles (presets: the chain's, entry by entry)
 * @property {boolean | ((params: object) => boolean)} [joinsWrites] a preset that frames what it is given (TLS records, padding frames) gets each write of the stages before it as one buffer, not piece by piece
 * @property {boolean | ((params: object) => boolean)} [authenticated] it detects any change to the bytes it carries (an AEAD, an HMAC a chunk); a chain is authenticated when one of its presets is, and a relay serves an unauthenticated chain beyond loopback only when told to (--allow-unauthenticated)
 * @property {(params: object) => boolean} [needsLegacyProvider]
 * @property {{ problem: (params: object, password: string | Buffer) => string | undefined, generate: (params: object) => string }} [password] for a preset whose key is not any password (SIP022's base64 PSK)
 * @property {(params: object, options: { password: string | Buffer }) => { frame?: object, packet?: object, sessions?: object }} [udp] its UDP form (lib/chain/udp-form.js): { frame } for an address preset (encode(address, payload), decode(datagram)), { packet } for a cipher (seal(plaintext), open(datagram), overhead), { sessions } for a preset that is the whole form (ss-2022); a chain carries UDP when every preset in it has one
 * @property {(params: object, options: { password: string | Buffer, now?: () => number }) => (connection: PresetConnection) => PresetStages} prepare the password is a string, or a Buffer of the bytes given when the key typed is not UTF-8 (lib/cli/raw-argument.js); now, a clock a known-answer test fixes
 * @property {(params: object, options: { note?: (line: string) => void }) => { accept: (socket: import('node:net').Socket) => unknown, connect: (socket: import('node:net').Socket) => unknown }} [transport] a transport's: the socket the relay server and client then read and write (lib/chain/transport.js)
 * @property {(params: object) => object} [multiplex] a mux's: its frame codec and limits, which the relay's mux client and server run (lib/chain/mux-plan.js)
 */

/**
 * A preset's parameter: `check` says what is wrong with a value given.
 * @typedef {object} PresetParam
 * @property {boolean} [required]
 * @property {readonly unknown[]} [values]
 * @property {string} [description]
 * @property {(value: unknown) => string | undefined} [check]
 */

/**
 * What a preset's stages do to one connection's bytes, each (data, push)
 * with push(bytes) handing on what it made; a stage it has no work for is
 * absent.
 * @typedef {object} PresetStages
 * @property {(data: Buffer, push: (data: Buffer) => void) => void} [clientEncode]
 * @property {(data: Buffer, push: (data: Buffer) => void) => void} [serverDecode]
 * @property {(data: Buffer, push: (data: Buffer) => void) => void} [serverEncode]
 * @property {(data: Buffer, push: (data: Buffer) => void) => void} [clientDecode]
 * @property {() => void} [decodeEnded] at the peer's FIN: throws a protocol error when the bytes so far stop inside a record (or lack the protocol's end record), so a cut stream is passed on as a reset, not as a clean end
 * @property {(push: (data: Buffer) => void) => void} [encodeEnded] at the local side's FIN, before it is passed on, to push an end record (VMess's empty chunk)
 */

/**
 * What a stage may need of its connection beyond its own bytes.
 * @typedef {object} PresetConnection
 * @property {object} [target] the client's: the address to carry
 * @property {(address: object) => void} [onTarget] the server's: the address read
 * @property {(address: object, received: Buffer) => void} [divert] the server's: hands the connection, with the bytes this stage received so far, to a server of the chain's params, carried both ways untouched from then on (a disguise's fallback for a handshake not meant for it); the stage reads nothing more of it
 * @property {(data: Buffer) => void} reply bytes toward the peer from just past this stage (through the stages nearer the wire), for handshakes that answer or release held data
 * @property {(bytes: number) => void} holding a stage that holds back what it was given to encode (a client waiting for the server's handshake) says how much it holds each time that changes, 0 once released: past a bound the relay stops reading the local side until then, so a server slow to answer slows the sender down instead of breaking its connection
 * @property {{ add: (salt: Buffer) => boolean }} salts add() is false when the salt was seen before: a decoder refuses the connection then (a replay); an encoder records its own salts so a reflected stream is refused too
 * @property {Record<string, unknown>} layers one object per connection that every stage of it shares, where a stage publishes what the stages before it may read (ss-stream-cipher publishes its key and the client's IV as layers.streamCipher, which ShadowsocksR's protocols authenticate their handshake with)
 */

/**
 * The settings a run measures with, as normalizeOptions() reads them
 * (lib/runner/run-options.js): what its result records as options, but the
 * engine before 'auto' chose and the --remote host whole, and what it does
 * not record.
 * @typedef {Omit<RecordedOptions, 'casesFile' | 'casesSource' | 'engine' | 'remote'> & RunOnlySettings} RunSettings
 */

/**
 * @typedef {object} RunOnlySettings
 * @property {'auto' | 'iperf3' | 'node' | 'wrk'} engine
 * @property {{ destination: string, command: string, sshConfig: string | null } | null} remote
 * @property {number} readyTimeout seconds a process has to say it is ready
 * @property {number | null} [caseLimit] how many of the selected cases the mode runs
 */

/**
 * What measures a workload, as its chooseEngine() picked it: a traffic
 * engine (lib/traffic/engine.js: iperf3 or the built-in sender and sink)
 * starts a server on the target port and a client towards the entry; a
 * request engine (lib/traffic/request-engine.js: wrk or the built-in
 * client) measures requests itself.
 * @typedef {object} Engine
 * @property {string} name 'iperf3', 'node' or 'wrk'
 * @property {string} path
 * @property {string | null} [reason] why a request run fell back to the built-in client
 * @property {(port: number, host?: string) => RelayPlan} [server] a traffic engine's
 * @property {(options: object) => { role: string, label: string, file: string, args: string[] }} [client] a traffic engine's
 * @property {boolean} [pacesReverse] a traffic engine's: whether its sink paces with --reverse
 * @property {string} [errorPrefix] a traffic engine's: what its errors start with
 * @property {(options: object) => Promise<object>} [measure] a request engine's
 */

/**
 * What a workload's measure() is given: the case, where its entry and
 * target listen, the run's settings, and the runner's hooks for what it
 * starts (track, place) and watches (listeners).
 * @typedef {object} Measuring
 * @property {Engine} engine
 * @property {Reference} identity the case, a chain ({ index, presets }) or a reference row
 * @property {{ host: string, port: number }} entry
 * @property {{ host: string, port: number }} target
 * @property {RunSettings} settings
 * @property {'forward' | 'reverse'} direction
 * @property {AbortSignal} [signal]
 * @property {(role: string, pid: number, command: string[]) => void} track
 * @property {{ label: string, exited: Promise<unknown>, exit?: object }[]} listeners
 * @property {(spec: { role: string, file: string, args: string[] }) => { role: string, label?: string, file: string, args: string[] }} [place]
 * @property {() => Promise<void>} [onMeasuring] called as the warm-up ends
 */

/**
 * What a workload's measure() resolves with: its figures, or why it
 * measured nothing.
 * @typedef {MeasuredFigures & OwnFigures} Measured
 */

/**
 * A workload's own figures, under the field its `figures` names in its
 * runs and cases (udp, requests): typed by its module, not here.
 * @typedef {{ [field: string]: any }} OwnFigures
 */

/**
 * @typedef {object} MeasuredFigures
 * @property {string} [reason]
 * @property {Side} [sender]
 * @property {Side} [receiver]
 * @property {object} [udp]
 * @property {object} [requests]
 * @property {{ client: number, server: number }} [engineCpu] iperf3's own CPU, in percent of a core
 */

/**
 * A workload (lib/workload/): what one run of a case measures, in parts
 * the runner calls in this order. Adding one: its module and its entry in
 * lib/workload/index.js; the runner, the run's options and these types
 * name none. A stream's figures (a run's and a case's sender and receiver)
 * are every workload's to fill; its own go under its own field.
 * @typedef {object} Workload
 * @property {WorkloadName} name the result's workload
 * @property {WorkloadOption} [option] the flag that asks for it; the one without is measured when none is given
 * @property {{ field: string, after: string }} [figures] the field of its own figures in its runs and in every case (null where another workload ran), after the case's field `after`
 * @property {(choice: { engine: string, iperf3Path?: string, wrkPath?: string, cases?: Reference[] }) => Promise<Engine>} chooseEngine what measures
 * @property {(selected: Reference[], settings: RunSettings, engine: Engine) => void | Promise<void>} check throws (or rejects with) an input error before anything starts
 * @property {(settings: RunSettings) => JudgedFigure} figure what ratios and the stopping rule judge
 * @property {(where: { engine: Engine, port: number, host: string, settings: RunSettings }) => RelayPlan} target what listens on the target port
 * @property {(measuring: Measuring) => Promise<Measured>} measure one measurement
 * @property {(measured: Measured) => boolean} measured whether the measurement has figures: only then is the run ok and its cost and disturbance read
 * @property {(measured: Measured, settings: RunSettings) => Partial<CaseRun> & OwnFigures} result the fields it adds to its run
 * @property {(runs: (CaseRun & OwnFigures)[], options: { level?: number }) => Partial<CaseResult> & OwnFigures} summarise a case's figures from its runs: sender, receiver and unstable, and its own field
 */

/**
 * A workload's flag (lib/runner/run-options.js lists it among the run's
 * options, after the option `after`): true asks for the workload.
 * @typedef {object} WorkloadOption
 * @property {string} name the run() option and the setting
 * @property {string} after the option it follows in --help and in a result's options
 * @property {{ flags: string, description: string }[]} cli
 * @property {boolean} [recorded] kept in the result's options too (--udp, --requests: results from before `workload` told the workload by them); else the result's workload says it
 * @property {string} [notForRequests] as run-options.js's entries
 * @property {(options: Record<string, any>) => string | undefined} [refuses] why the other options given cannot go with it
 */

/**
 * The figure ratios and the stopping rule judge a case on: its value in
 * one run (null when it has none), and the case's summary with its
 * interval and the summary's median.
 * @typedef {object} JudgedFigure
 * @property {string} name
 * @property {(run: any) => number | null} ofRun a run as the workload's result() wrote it
 * @property {(caseResult: any) => { summary: Interval, middle: number } | null} ofCase a case with its workload's own field
 */

/**
 * `program` (a name locate() found) run with `args` prints a line that
 * `pattern`'s first group reads the version from.
 * @typedef {object} PeerVersion
 * @property {string} program
 * @property {string[]} args
 * @property {RegExp} pattern
 */

export {};
