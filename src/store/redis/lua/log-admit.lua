-- log-admit.lua: central-log's request-path call. Admits iff the window's count + every gateway's
-- outstanding grants + cost <= L, and appends `cost` admits at now, atomically.
-- KEYS[1] log    the key's window log (sorted set, or bucket hash in compact mode)
-- KEYS[2] meta   the key's meta hash: grants 'g:<gw>', last sync seq 'q:<gw>', member counter 'n'
-- ARGV[1..6]     as in common.lua (now ms, windowMs, kind, limit, buckets, marginMs)
-- ARGV[7] cost   slots this request takes, a positive integer
-- Reply: { allowed 1|0, count after, oldest counted admit's expiry ms ('' = none), store now ms }

local log, meta = KEYS[1], KEYS[2]
local cost = tonumber(ARGV[7])

local outstanding, _, _, latestLapse = leases(meta, nil)
local count = prune(log)
local allowed = count + outstanding + cost <= LIMIT
if allowed then
  local times = {}
  for i = 1, cost do
    times[i] = NOW
  end
  add(log, meta, times)
  count = count + cost
end
local first = oldest(log)
settle(KEYS, last(log), latestLapse)
return { allowed and 1 or 0, count, first and num(first) or '', num(NOW) }
