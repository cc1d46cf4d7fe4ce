import { prepareHttp } from './simple-obfs/http-mode.js';
import { prepareTls } from './simple-obfs/tls-mode.js';

// The wire of simple-obfs 0.0.5 (obfs-local and obfs-server, the plugin
// shadowsocks-libev users run), which differs from blinksocks' obfs-http and
// obfs-tls1.2-ticket: see docs/simple-obfs.md.
const MODES = { http: prepareHttp, tls: prepareTls };
// obfs-local's default obfs-host.
const DEFAULT_HOST = 'cloudfront.net';
const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

export default {
  name: 'simple-obfs',
  summary:
    'simple-obfs 0.0.5 (obfs-local/obfs-server): an HTTP upgrade request and answer, or a TLS 1.2 ClientHello with session ticket, then TLS records',
  roles: ['disguise'],
  params: {
    mode: {
      required: true,
      values: Object.keys(MODES),
      description: 'obfs=http or obfs=tls, as simple-obfs names them',
    },
    host: {
      required: false,
      description: `the Host header (http) or SNI name (tls) the client sends and the server requires, obfs-host in simple-obfs (default ${DEFAULT_HOST})`,
      check: (value) =>
        typeof value === 'string' && HOST_NAME.test(value)
          ? undefined
          : `must be a host name such as ${DEFAULT_HOST} (letters, digits, '-' and '.', at most 253 characters)`,
    },
  },
  // tls frames what it is given as records, as obfs-local frames each read,
  // and its ClientHello carries the first write: both want whole writes.
  // http adds nothing after its head, so its writes pass as they come,
  // never copied together.
  joinsWrites: (params) => params.mode === 'tls',
  prepare(params) {
    return MODES[params.mode]({ host: params.host ?? DEFAULT_HOST });
  },
};
