#!/bin/bash
# Promoted bytes per connection in a relay server under wrk with a new
# connection per request (issue 54; docs/notes/gc-promotion.md): V8's
# --trace-gc-nvp on the server relay, `promoted` summed over the
# scavenges (young mark-sweeps under --minor-ms) after 2 s of warm-up,
# divided by the requests wrk completed;
# `nodes_promoted` likewise (global handles, node:crypto's objects among
# them). CONCURRENCY (8) is wrk's -c: with 1, one connection at a time,
# what is promoted beyond the bare relay's is kept by something between
# connections, not by those in flight.
#   [CONCURRENCY=N] scripts/gc-promotion.sh [NODE] [bare|plain|aes128|'<chain json>'] [SECONDS]
# Each run opens about a thousand connections a second through three hops,
# all on loopback, and leaves them in TIME_WAIT for a minute: run a few,
# not a loop, beside anything else that connects.
set -u
NODE=${1:-node}
KIND=${2:-plain}
SECONDS_MEASURED=${3:-8}
cd "$(dirname "$0")/.."
BASE=$((20000 + RANDOM % 10000))
TARGET=$BASE SERVER=$((BASE + 1)) CLIENT=$((BASE + 2))
FLAGS="--max-semi-space-size=4 --no-concurrent-recompilation ${EXTRA_NODE_FLAGS:-}"
LOG=$(mktemp)
trap 'kill $(jobs -p) 2>/dev/null; rm -f "$LOG"' EXIT
"$NODE" bin/cipherbench.js http-target --listen 127.0.0.1:$TARGET >/dev/null 2>&1 &
case $KIND in
  bare)
    "$NODE" $FLAGS --trace-gc-nvp bin/cipherbench.js bare-relay --listen 127.0.0.1:$SERVER --forward 127.0.0.1:$TARGET >"$LOG" 2>&1 &
    "$NODE" $FLAGS bin/cipherbench.js bare-relay --listen 127.0.0.1:$CLIENT --forward 127.0.0.1:$SERVER >/dev/null 2>&1 &
    ;;
  *)
    case $KIND in
      plain) CHAIN='[{"name":"ss-base"}]' ;;
      aes128) CHAIN='[{"name":"ss-base"},{"name":"ss-aead-cipher","params":{"method":"aes-128-gcm"}}]' ;;
      *) CHAIN=$KIND ;;
    esac
    "$NODE" $FLAGS --trace-gc-nvp bin/cipherbench.js relay server --listen 127.0.0.1:$SERVER --key k --presets "$CHAIN" --log-level error >"$LOG" 2>&1 &
    "$NODE" $FLAGS bin/cipherbench.js relay client --listen 127.0.0.1:$CLIENT --key k --presets "$CHAIN" --server 127.0.0.1:$SERVER --forward 127.0.0.1:$TARGET --log-level error >/dev/null 2>&1 &
    ;;
esac
for _ in $(seq 100); do
  listening=$(ss -Hltn)
  grep -q ":$CLIENT " <<<"$listening" && grep -q ":$SERVER " <<<"$listening" && grep -q ":$TARGET " <<<"$listening" && break
  sleep 0.1
done
wrk -t1 -c${CONCURRENCY:-8} -d2s -H 'Connection: close' http://127.0.0.1:$CLIENT/ >/dev/null 2>&1
warm=$(grep -cE 'gc=(s|mms) ' "$LOG")
requests=$(wrk -t1 -c${CONCURRENCY:-8} -d${SECONDS_MEASURED}s -H 'Connection: close' http://127.0.0.1:$CLIENT/ 2>&1 | awk '/requests in/ {print $1}')
sleep 0.3
awk -v skip="$warm" -v requests="${requests:-0}" -v kind="$KIND" -v node="$("$NODE" -v)" '
  /gc=(s|mms) / { n++; if (n <= skip) next; scavenges++
            for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "promoted") promoted += kv[2]; if (kv[1] == "nodes_promoted") nodes += kv[2] } }
  /gc=mc / { compacts++ }
  END { if (requests == 0) { print "no requests completed"; exit 1 }
        printf "%s %s: %d connections, %d scavenges, %d mark-compacts, %.0f bytes and %.2f global handles promoted a connection\n",
          node, kind, requests, scavenges, compacts, promoted / requests, nodes / requests }' "$LOG"
