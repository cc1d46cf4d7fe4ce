// `relay server --udp` and `relay client --udp`: the UDP relay on the port
// number the TCP one got (iperf3 -u and every Shadowsocks client expect
// both on one port). `tcp` is a started relay; `startUdp(listen)` starts
// the UDP one. Resolves with one relay that closes both.
export async function besideTcp(tcp, startUdp) {
  let udp;
  try {
    udp = await startUdp(tcp.address);
  } catch (error) {
    await tcp.close();
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
