// Preloaded (node --require) into blinksocks 3.3.0, whose ss-stream-cipher
// refuses to start with chacha20-ietf unless Node.js is 10.x: a version
// check only, since node:crypto's chacha20 has worked the same way since
// (its bytes match shadowsocks-libev's, test/relay-interop-blinksocks-catalogue.test.js).
// The check is lifted for that one method; every other check stays.
const path = require('node:path');

const blinksocks = path.dirname(require.resolve('blinksocks/package.json', { paths: [path.dirname(process.argv[1])] }));
const { default: SsStreamCipher } = require(path.join(blinksocks, 'lib/presets/ss-stream-cipher.js'));
const check = SsStreamCipher.onCheckParams;
SsStreamCipher.onCheckParams = function onCheckParams(params) {
  if (params.method === 'chacha20-ietf') return;
  check.call(this, params);
};
