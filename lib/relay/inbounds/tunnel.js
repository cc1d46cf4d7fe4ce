// The port forward: every connection goes to the one target the relay
// client was started with (--forward), as ss-tunnel and sslocal --protocol
// tunnel do. No handshake, so iperf3 and any TCP program need no proxy
// support.
export const tunnelInbound =
  ({ forward, dial, splice }) =>
  (local) =>
    splice(local, dial(), forward);
