import { UPGRADE_PARAMS } from '../wire/http-upgrade.js';
import { authorityParam, http2Client, http2Server, offersH2, refusal } from '../wire/http2-tunnel.js';
import { protocolError } from '../wire/protocol-error.js';

// V2Ray's `http` transport (sing-box's `http` inside tls): one HTTP/2
// request, PUT to a path, its body the client's bytes and its response's
// body the server's, as they are, in DATA frames. Each END_STREAM is that
// side's FIN. V2Ray's client runs it only inside TLS that agreed on h2,
// and sing-box's speaks HTTP/1.1 without tls, so the chain is
// [..., h2, tls] with tls's alpn "h2"; h2c, over TCP, pairs with ours and
// with V2Ray's server.
//
// Our server takes the path exactly (V2Ray's and sing-box's take any path
// that starts with theirs) and PUT or POST (V2Ray's takes any method).
const DEFAULT_PATH = '/cipherbench';
// The host V2Ray's and sing-box's clients send when given none, and the
// only one V2Ray 4.34's server, given none, serves: it compares the
// request's with its own list, www.example.com by default (V2Ray 5 checks
// only a list it was given).
const DEFAULT_HOST = 'www.example.com';
const METHODS = ['PUT', 'POST'];

const framing = () => ({ encode: (buffers) => buffers, decoder: (deliver) => ({ read: deliver, ended() {} }) });

function serverCheck({ path, host }) {
  return (headers) => {
    if (headers[':path'] !== path) {
      throw refusal(`h2: a request for ${JSON.stringify(headers[':path'])}, not ${path} (answered 404)`);
    }
    if (!METHODS.includes(headers[':method'])) {
      throw refusal(`h2: a ${headers[':method']} request, not PUT or POST (answered 404)`);
    }
    const authority = String(headers[':authority'] ?? headers.host ?? '');
    if (host !== undefined && authority.toLowerCase() !== host.toLowerCase()) {
      throw refusal(`h2: a request for host ${JSON.stringify(authority)}, not ${host} (answered 404)`);
    }
  };
}

export default {
  name: 'h2',
  summary: "HTTP/2 transport, V2Ray's http: one PUT whose bodies carry the bytes; normally inside tls (alpn h2)",
  roles: ['transport'],
  inside: ['tls'],
  params: {
    path: UPGRADE_PARAMS.path,
    host: authorityParam(DEFAULT_HOST),
  },
  placement: offersH2('h2'),
  prepare() {
    return () => ({});
  },
  transport(params, { note = () => {} } = {}) {
    const path = params.path ?? DEFAULT_PATH;
    const host = params.host ?? DEFAULT_HOST;
    return {
      accept: http2Server({
        framing,
        check: serverCheck({ path, host: params.host }),
        answer: { ':status': 200, 'cache-control': 'no-store' },
        note: () => note(`h2 ${path}`),
      }),
      connect: (inner) =>
        http2Client(inner, {
          framing,
          authority: host,
          request: { ':method': 'PUT', ':path': path },
          check: (headers) => {
            if (headers[':status'] !== 200) throw protocolError(`h2: the server answered ${headers[':status']}`);
          },
          note: () => note(`h2 ${path}, Host ${host}`),
        }),
    };
  },
};
