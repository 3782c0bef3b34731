#!/usr/bin/env bash
# Redis's own time (INFO commandstats, µs per EVAL of 100,000 iterations) of the Lua pieces a key-sync
# is made of: string.format, table creation, struct.unpack, and redis.call of HGETALL / HMGET / HGET /
# HSET / ZCARD / ZADD. Starts a private redis-server on PORT (default 7411) and stops it by its PID.
# Usage: bash bench/probes/lua-call-costs.sh [PORT]
set -euo pipefail
PORT=${1:-7411}
DIR=$(mktemp -d)
redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
  --pidfile "$DIR/r.pid" --logfile "$DIR/r.log"
trap 'kill "$(cat "$DIR/r.pid")"; rm -rf "$DIR"' EXIT
R="redis-cli -p $PORT"
until $R ping >/dev/null 2>&1; do sleep 0.1; done
$R hset hh n 123 a 456 o 1764800000000 z 1764800000000 q:gw-1 5 >/dev/null
measure() {
  $R config resetstat >/dev/null
  for _ in 1 2 3 4 5; do $R eval "$2" 0 >/dev/null; done
  local us
  us=$($R info commandstats | grep 'cmdstat_eval:' | sed 's/.*usec_per_call=\([0-9.]*\).*/\1/')
  printf '%-28s %8.3f µs per iteration\n' "$1" "$(echo "$us / 100000" | bc -l)"
}
measure 'empty loop' "local x = 0 for i = 1, 100000 do x = x + i end return 1"
measure "string.format('%.17g')" "local x for i = 1, 100000 do x = string.format('%.17g', i * 1.5) end return 1"
measure "string.format('%d')" "local x for i = 1, 100000 do x = string.format('%d', i) end return 1"
measure '{} (empty table)' "local x for i = 1, 100000 do x = {} end return 1"
measure 'struct.unpack 9 doubles' "local s = struct.pack('<ddddddddd', 1, 2, 3, 4, 5, 6, 7, 8, 9) local a for i = 1, 100000 do a = struct.unpack('<ddddddddd', s, 1) end return 1"
measure 'HGETALL (5 fields)' "local x for i = 1, 100000 do x = redis.call('HGETALL', 'hh') end return 1"
measure 'HMGET (6 fields)' "local x for i = 1, 100000 do x = redis.call('HMGET', 'hh', 'n', 'a', 'o', 'z', 'e', 'q:gw-1') end return 1"
measure 'HGET' "local x for i = 1, 100000 do x = redis.call('HGET', 'hh', 'a') end return 1"
measure 'HSET (4 fields)' "local x for i = 1, 100000 do x = redis.call('HSET', 'hh', 'n', '124', 'a', '457', 'z', '1764800000001', 'q:gw-1', '6') end return 1"
measure 'ZCARD' "local x for i = 1, 100000 do x = redis.call('ZCARD', 'zz') end return 1"
measure 'ZADD (growing set)' "redis.call('DEL', 'zz') for i = 1, 100000 do redis.call('ZADD', 'zz', i, 'm' .. i) end return 1"
