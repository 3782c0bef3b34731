-- ask.lua: leases-ask's request-path call. Grants this gateway up to `ask` more slots now, never past
-- admitted-in-window + every outstanding grant <= L; a grant renews this gateway's lapse time.
-- KEYS[1] log    the key's window log
-- KEYS[2] meta   the key's meta hash (see log-admit.lua)
-- ARGV[1..6]     as in common.lua (now ms, windowMs, kind, limit, buckets, marginMs)
-- ARGV[7] gatewayId
-- ARGV[8] leaseTtlMs  ms a grant stays outstanding without a sync
-- ARGV[9] ask         slots asked for, an integer >= 0
-- ARGV[10] seq        the seq of the last sync the gateway built before this ask: the grant is
--                     tagged 2·seq + 1, so that sync (and its retries) never hands it back
-- Reply: { granted, grant lapse ms, store now ms, count, oldest counted admit's expiry ms ('' = none),
--         slots neither admitted nor granted after this grant }

local log = KEYS[1]
local gw = ARGV[7]
local ttl = tonumber(ARGV[8])
local ask = tonumber(ARGV[9])
local tag = 2 * (tonumber(ARGV[10]) or 0) + 1

local m = readMeta(KEYS[2])
local others, held, lapse, latestLapse = leases(m, gw, nil)
local count, logExisted = prune(log, m)
m.existed = m.existed or logExisted
local granted = math.max(0, math.min(ask, LIMIT - count - others - held))
local grantExpiresAt = lapse or NOW
if granted > 0 then
  grantExpiresAt, latestLapse = addGrant(m, gw, tag, granted, NOW + ttl, latestLapse)
end
local touched = granted > 0
-- what a gateway left without a slot waits for (the contract's AskReply.oldestExpiry, free)
local first = count > 0 and oldest(log) or nil
local free = math.max(0, LIMIT - count - others - held - granted)
settle(log, m, count, (touched and count > 0) and last(log, m) or nil, latestLapse, touched)
return { granted, num(grantExpiresAt), num(NOW), count, first and num(first) or '', free }
