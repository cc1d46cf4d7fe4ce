// The built-in engine's UDP mode (docs/traffic-engine.md): every datagram
// opens with 16 bytes, as iperf3 -u's open with its own: the test's number
// (the sink gives it when it accepts the test), the datagram's sequence
// number from 0, and when it was sent, in seconds and nanoseconds of the
// sender's monotonic clock. The sink and the sender share that clock on one
// machine, and where they do not, its offset cancels out of the jitter,
// which compares transit times only with each other.
export const UDP_HEADER_LENGTH = 16;
// The payload a UDP test's datagram may carry (--length): at least that
// header, at most what an IPv4 datagram holds.
export const UDP_LENGTH = Object.freeze({ min: UDP_HEADER_LENGTH, max: 65_507 });
const NS_PER_S = 1_000_000_000n;

// The receive buffer of whatever receives a UDP test, the built-in sink or
// iperf3 -s (given as -w, which iperf3 sets on both ends). The default (208
// KiB here) holds some 90 datagrams of 1,200 bytes, about 40 ms at 20
// Mbit/s: a sink descheduled that long on a loaded machine dropped up to
// 18% at 20 Mbit/s, and iperf3 -s 3.6% at 5 Mbit/s in a CI run of the
// suite. 4 MiB (the kernel caps it at net.core.rmem_max) rides out such
// pauses, so the loss is the path's, not the receiver's.
export const UDP_RECEIVE_BUFFER = 4 * 1024 * 1024;

export function writeUdpHeader(datagram, { test, sequence, sentAt }) {
  datagram.writeUInt32BE(test, 0);
  datagram.writeUInt32BE(sequence >>> 0, 4);
  datagram.writeUInt32BE(Number((sentAt / NS_PER_S) & 0xffffffffn), 8);
  datagram.writeUInt32BE(Number(sentAt % NS_PER_S), 12);
}

// null for a datagram too short to be one of ours.
export function readUdpHeader(datagram) {
  if (datagram.length < UDP_HEADER_LENGTH) return null;
  return {
    test: datagram.readUInt32BE(0),
    sequence: datagram.readUInt32BE(4),
    sentAt: BigInt(datagram.readUInt32BE(8)) * NS_PER_S + BigInt(datagram.readUInt32BE(12)),
  };
}

// What the sink counts of one test's datagrams, as iperf3 -s does: how
// many arrived, the interarrival jitter of RFC 3550 (section 6.4.1: the
// mean deviation of the difference in transit time between consecutive
// datagrams, smoothed by 1/16), and how many came after one numbered
// higher (out of order).
export function createUdpTally() {
  let packets = 0;
  let next = 0;
  let outOfOrder = 0;
  let jitterNs = 0;
  let lastTransit = null;
  return {
    add({ sequence, sentAt }, arrivedAt) {
      packets += 1;
      if (sequence < next) outOfOrder += 1;
      else next = sequence + 1;
      const transit = Number(arrivedAt - sentAt);
      if (lastTransit !== null) jitterNs += (Math.abs(transit - lastTransit) - jitterNs) / 16;
      lastTransit = transit;
    },
    figures: () => ({ packets, out_of_order: outOfOrder, jitter_ms: jitterNs / 1e6 }),
  };
}
