-- log-admit.lua: central-log's request-path call. Admits iff the window's count + every gateway's
-- outstanding grants + cost <= L, and appends `cost` admits at now (one run), atomically.
-- KEYS[1] log    the key's window log (sorted set; compact mode: the bucket hash of earlier
--                versions, folded into the meta hash: window-buckets.lua)
-- KEYS[2] meta   the key's meta hash: member counter 'n', last sync seq 'q:<gw>', grants 'g:<gw>',
--                the log's count 'a' (exact mode, see window-exact.lua)
-- ARGV[1..6]     as in common.lua (now ms, windowMs, kind, limit, buckets, marginMs)
-- ARGV[7] cost   slots this request takes, a positive integer
-- ARGV[8] gw     the calling gateway's id, '' for a call without one
-- ARGV[9] seq    the call's number (with gw): its admits are named after it, and a call that
--                void.lua took back already is refused
-- Reply: { allowed 1|0, count after, oldest counted admit's expiry ms ('' = none), store now ms }

local log = KEYS[1]
local cost = tonumber(ARGV[7])
local gw = ARGV[8]

-- A count kept beside the log must never take a cost that is not a positive integer.
if cost == nil or cost < 1 or cost % 1 ~= 0 then
  return redis.error_reply('ERR cost must be a positive integer, got ' .. ARGV[7])
end

-- A cost above L can never be admitted: refused at once, whatever the window holds, writing nothing.
if cost > LIMIT then
  local count, first = peek(log)
  return { 0, count, first and num(first) or '', num(NOW) }
end

local m = readMeta(KEYS[2])
local outstanding, _, _, latestLapse = leases(m, nil, nil)
local count, logExisted = prune(log, m)
m.existed = m.existed or logExisted
local void = gw ~= '' and m.voids[gw] ~= nil and tonumber(ARGV[9]) <= m.voids[gw][1]
local allowed = not void and count + outstanding + cost <= LIMIT
if allowed then
  -- one run whatever the cost: the work never grows with it
  if gw ~= '' then
    count = count + addCall(log, m, NOW, cost, gw, ARGV[9])
  else
    add(log, m, { NOW }, { cost })
    count = count + cost
  end
end
local first = oldest(log)
settle(log, m, count, allowed and last(log, m) or nil, latestLapse, allowed)
return { allowed and 1 or 0, count, first and num(first) or '', num(NOW) }
