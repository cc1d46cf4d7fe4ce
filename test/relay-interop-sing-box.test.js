import { singBoxClientConfig, singBoxServerConfig } from '../lib/peers/sing-box.js';
import { describeTcpPairings, describeUdpPairings } from './support/go-peers.js';

// Wire compatibility with sing-box 1.14.1 (built by .ci/run), both ways,
// for every pairing of test/support/go-peers.js: Shadowsocks AEAD and 2022
// (TCP and UDP), VMess with the AEAD header, VLESS and Trojan over our tls.
// sing-box says it started only at log level info.
const talking = (config) => (user) => ({ ...config(user), log: { level: 'info' } });
const peer = { serverConfig: talking(singBoxServerConfig), clientConfig: talking(singBoxClientConfig) };

describeTcpPairings('sing-box', peer);
describeUdpPairings('sing-box', peer);
