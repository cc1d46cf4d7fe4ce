// The processes that belong with the relay server, on whichever host runs
// its half of a case (a link's far namespace, a --remote host): the
// engine's server, the relay server and the latency probe's echo target.
// Everything else runs beside the relay client.
const SERVER_ROLES = new Set(['relay-server', 'iperf3-server', 'traffic-sink', 'echo-target']);

export const isServerSide = (role) => SERVER_ROLES.has(role);
