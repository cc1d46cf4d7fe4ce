// `relay server --udp` and `relay client --udp`: the UDP relay on the port
// number the TCP one got (iperf3 -u and every Shadowsocks client expect
// both on one port). `startTcp()` starts the TCP relay, `startUdp(address)`
// the UDP one on its address (and the TCP relay, whose mux pool a
// multiplexing chain's UDP rides). Given port 0, the kernel chose the TCP port
// without asking whether that UDP port is free: when it is not, both start
// again on another, a few times. Resolves with one relay that closes both.
const ATTEMPTS_ON_ANY_PORT = 10;

export async function besideTcp(startTcp, startUdp, { anyPort }) {
  for (let attempt = 1; ; attempt++) {
    const tcp = await startTcp();
    let udp;
    try {
      udp = await startUdp(tcp.address, tcp);
    } catch (error) {
      await tcp.close();
      if (anyPort && error.code === 'EADDRINUSE' && attempt < ATTEMPTS_ON_ANY_PORT) continue;
      throw error;
    }
    return {
      ...tcp,
      stats: () => ({ ...tcp.stats?.(), udp: udp.stats() }),
      async close() {
        await udp.close();
        return tcp.close();
      },
    };
  }
}
