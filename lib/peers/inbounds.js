// @ts-check
// How the request workload's clients reach a case's relay client (a case's
// `inbound`, docs/requests.md): a port forward to the target (tunnel, the
// bulk stream's), SOCKS5, HTTP CONNECT or plain HTTP proxying. A peer that
// has more than the tunnel lists what it has as `inbounds`; one without
// that list is a tunnel only.
export const CASE_INBOUNDS = Object.freeze(['tunnel', 'socks5', 'http-connect', 'http-proxy']);
