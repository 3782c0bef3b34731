-- refund.lua: takes back admits of one gateway on one key (refunds, issue 36): each refund whose seq
-- is above the highest this gateway refunded on the key removes up to `cost` admits at `at`, if they
-- still count (the window module's refundAt). The key keeps that highest seq in 'r:<gw>' while it
-- holds anything, so a resend, or an older refund landing late, takes nothing. A key holding nothing
-- is left as it is (nothing to take back, and no record made for the seq). Safe to repeat.
-- KEYS[2i-1], KEYS[2i]  key i's window log and meta hash (every key of a call in one cluster slot)
-- ARGV[1..6]     as in common.lua (now ms, windowMs, kind, limit, buckets, marginMs)
-- ARGV[7] gw     the gateway's id
-- then per key, in KEYS order: n, then n triples: seq, at (ms), cost
-- Reply: { admits removed (every key), store now ms }
-- Many keys in one call: the script call itself was most of a lone refund's cost (bench/refund.ts).

local gw = ARGV[7]
local field = 'r:' .. gw
local a = 8
local removedAll = 0
for i = 1, #KEYS / 2 do
  local log = KEYS[2 * i - 1]
  local n = tonumber(ARGV[a])
  local first = a + 1
  a = first + 3 * n
  local m = readMeta(KEYS[2 * i])
  if m.existed then
    local _, _, _, latestLapse = leases(m, nil, nil)
    local count, logExisted = prune(log, m)
    m.existed = m.existed or logExisted
    local top = nil
    for j = 1, #m.all, 2 do
      if m.all[j] == field then
        top = tonumber(m.all[j + 1])
      end
    end
    local topArg = nil
    local removed = 0
    for j = 0, n - 1 do
      local seqArg = ARGV[first + 3 * j]
      local seq = tonumber(seqArg)
      if top == nil or seq > top then
        top, topArg = seq, seqArg
        removed = removed + refundAt(log, m, tonumber(ARGV[first + 3 * j + 1]), tonumber(ARGV[first + 3 * j + 2]))
      end
    end
    count = count - removed
    if topArg ~= nil then
      metaSet(m, field, topArg)
    end
    settle(log, m, count, count > 0 and last(log, m) or nil, latestLapse, true)
    removedAll = removedAll + removed
  end
end
return { removedAll, num(NOW) }
