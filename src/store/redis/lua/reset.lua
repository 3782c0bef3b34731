-- reset.lua: forgets every admit of one key at or before the store's now (or ARGV[7]) (a reset, issue 36:
-- express-rate-limit's resetKey): the window module's resetThrough. Grants, seqs, voids and refund
-- seqs stay in the meta hash; the meta record is settled as refund.lua settles it (a key left holding
-- nothing is deleted). A key holding nothing is left as it is. Safe to repeat.
-- KEYS[1] log    the key's window log
-- KEYS[2] meta   the key's meta hash
-- ARGV[1..6]     as in common.lua (now ms, windowMs, kind, limit, buckets, marginMs)
-- ARGV[7]        optional: the reset's instant (a reset-all's, the instant it was asked for): admits
--                at or before it go, later ones stay; absent or '' (resetKey), or after NOW: NOW
-- Reply: { admits removed, store now ms }

local log = KEYS[1]
local at = NOW
if ARGV[7] ~= nil and ARGV[7] ~= '' then
  at = math.min(tonumber(ARGV[7]), NOW)
end

local m = readMeta(KEYS[2])
if not m.existed then
  return { 0, num(NOW) }
end
local _, _, _, latestLapse = leases(m, nil, nil)
local count, logExisted = prune(log, m)
m.existed = m.existed or logExisted
local removed = 0
if count > 0 then
  removed = resetThrough(log, m, at)
  count = count - removed
end
settle(log, m, count, count > 0 and last(log, m) or nil, latestLapse, true)
return { removed, num(NOW) }
