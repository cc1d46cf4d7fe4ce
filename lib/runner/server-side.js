// @ts-check
// The processes that belong with the relay server, on whichever host runs
// its half of a case (a link's far namespace, a --remote host): the
// engine's server, the relay server, the TLS site a REALITY or ShadowTLS
// server borrows a handshake from (it dials the site on its own loopback)
// and the latency probe's echo target. Everything else runs beside the
// relay client.
const SERVER_ROLES = new Set(['relay-server', 'relay-site', 'iperf3-server', 'traffic-sink', 'echo-target']);

export const isServerSide = (role) => SERVER_ROLES.has(role);
