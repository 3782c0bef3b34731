-- live.lua: one gateway's heartbeat for `gateways: 'auto'` (see Heartbeat in src/store/contract.ts;
-- src/store/live-set.ts is the same rule in memory). One call per gateway per sync round.
--
-- KEYS[1]  the policy's live set: a sorted set, member = gateway, score = its expiry (store time):
--          its last beat + the liveWithinMs that beat carried
-- ARGV[1..6] as common.lua (only now is used)
-- ARGV[7]  the gateway (its incarnation)
-- ARGV[8]  liveWithinMs: this member is gone that long after this beat (crashed, or cut off from the
--          store) unless it beats again. Each member keeps its own: a gateway with a short Δ must
--          not prune the others by its window (issue 32, item 3)
-- ARGV[9]  '1': the gateway leaves (stop()); else it beats
--
-- Reply: { live gateways, now }. The set expires a minute after its last member: by then every
-- member in it would be gone anyway. The minute's slack is for the caller's clock (clock: 'caller'):
-- PEXPIRE runs on Redis's own clock, so a set timed exactly to a caller's now that runs behind it
-- would vanish before its last member's window ended, and with it every live member (a K too small).

local set = KEYS[1]
local member = ARGV[7]
local within = tonumber(ARGV[8])
if ARGV[9] == '1' then
  redis.call('ZREM', set, member)
else
  redis.call('ZADD', set, num(NOW + within), member)
end
redis.call('ZREMRANGEBYSCORE', set, '-inf', '(' .. num(NOW))
local live = redis.call('ZCARD', set)
if live > 0 then
  local last = redis.call('ZRANGE', set, -1, -1, 'WITHSCORES')
  redis.call('PEXPIRE', set, math.max(0, math.ceil(tonumber(last[2]) - NOW)) + 60000)
end
return { live, num(NOW) }
