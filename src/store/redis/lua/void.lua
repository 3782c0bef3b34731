-- void.lua: takes back central-log calls of one gateway on one key that the gateway gave up on (they
-- timed out: it decided without them). A call whose admits are in the log loses them (exact mode;
-- compact mode cannot single them out), and the key records that the gateway's calls up to the
-- highest seq given are void for one window, so one still on its way is refused when it lands.
-- Safe to repeat.
-- KEYS[1] log    the key's window log
-- KEYS[2] meta   the key's meta hash
-- ARGV[1..6]     as in common.lua (now ms, windowMs, kind, limit, buckets, marginMs)
-- ARGV[7] gw     the gateway's id
-- ARGV[8] n      calls, then n pairs: seq, cost
-- Reply: { admits removed, store now ms }

local log = KEYS[1]
local gw = ARGV[7]
local n = tonumber(ARGV[8])

local m = readMeta(KEYS[2])
local _, _, _, latestLapse = leases(m, nil, nil)
local count, logExisted = prune(log, m)
m.existed = m.existed or logExisted
local top = m.voids[gw] and m.voids[gw][1] or nil
local topArg = top and num(top) or nil
local removed = 0
for i = 1, n do
  local seqArg = ARGV[7 + 2 * i]
  local seq = tonumber(seqArg)
  removed = removed + removeCall(log, m, gw, seqArg, tonumber(ARGV[8 + 2 * i]))
  if top == nil or seq > top then
    top, topArg = seq, seqArg
  end
end
count = count - removed
local untilAt = NOW + WINDOW
metaSet(m, 'v:' .. gw, topArg .. ':' .. num(untilAt))
if m.voidUntil == nil or untilAt > m.voidUntil then
  m.voidUntil = untilAt
end
settle(log, m, count, count > 0 and last(log, m) or nil, latestLapse, true)
return { removed, num(NOW) }
