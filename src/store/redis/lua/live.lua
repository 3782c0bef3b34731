-- live.lua: one gateway's heartbeat for `gateways: 'auto'` (see Heartbeat in src/store/contract.ts;
-- src/store/live-set.ts is the same rule in memory). One call per gateway per sync round.
--
-- KEYS[1]  the policy's live set: a sorted set, member = gateway, score = its last beat (store time)
-- ARGV[1..6] as common.lua (only now is used)
-- ARGV[7]  the gateway (its incarnation)
-- ARGV[8]  liveWithinMs: members whose last beat is older are gone (crashed, or cut off from the store)
-- ARGV[9]  '1': the gateway leaves (stop()); else it beats
--
-- Reply: { live gateways, now }. The set expires liveWithinMs after the last beat: by then every
-- member in it would be gone anyway.

local set = KEYS[1]
local member = ARGV[7]
local within = tonumber(ARGV[8])
if ARGV[9] == '1' then
  redis.call('ZREM', set, member)
else
  redis.call('ZADD', set, NOW, member)
end
redis.call('ZREMRANGEBYSCORE', set, '-inf', '(' .. num(NOW - within))
local live = redis.call('ZCARD', set)
if live > 0 then
  redis.call('PEXPIRE', set, math.max(1, math.ceil(within)))
end
return { live, num(NOW) }
