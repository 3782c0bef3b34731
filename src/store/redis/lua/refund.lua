-- refund.lua: takes back admits of one gateway on one key (refunds, issue 36): each refund whose seq
-- is above the highest this gateway refunded on the key removes up to `cost` admits at `at`, if they
-- still count (the window module's refundAt). The key keeps that highest seq in 'r:<gw>' while it
-- holds anything, so a resend, or an older refund landing late, takes nothing. A key holding nothing
-- is left as it is (nothing to take back, and no record made for the seq). Safe to repeat.
-- KEYS[1] log    the key's window log
-- KEYS[2] meta   the key's meta hash
-- ARGV[1..6]     as in common.lua (now ms, windowMs, kind, limit, buckets, marginMs)
-- ARGV[7] gw     the gateway's id
-- ARGV[8] n      refunds, then n triples: seq, at (ms), cost
-- Reply: { admits removed, store now ms }

local log = KEYS[1]
local gw = ARGV[7]
local n = tonumber(ARGV[8])

local m = readMeta(KEYS[2])
if not m.existed then
  return { 0, num(NOW) }
end
local _, _, _, latestLapse = leases(m, nil, nil)
local count, logExisted = prune(log, m)
m.existed = m.existed or logExisted
local field = 'r:' .. gw
local top = nil
for i = 1, #m.all, 2 do
  if m.all[i] == field then
    top = tonumber(m.all[i + 1])
  end
end
local topArg = nil
local removed = 0
for i = 1, n do
  local seqArg = ARGV[6 + 3 * i]
  local seq = tonumber(seqArg)
  if top == nil or seq > top then
    top, topArg = seq, seqArg
    removed = removed + refundAt(log, m, tonumber(ARGV[7 + 3 * i]), tonumber(ARGV[8 + 3 * i]))
  end
end
count = count - removed
if topArg ~= nil then
  metaSet(m, field, topArg)
end
settle(log, m, count, count > 0 and last(log, m) or nil, latestLapse, true)
return { removed, num(NOW) }
