-- common.lua: prepended to every fleetlimit script when it is loaded (Redis scripts cannot
-- include one another). Times are milliseconds, as IEEE doubles, exactly as the JavaScript side
-- computes them, so the store's decisions are bit-for-bit those of src/store/memory-store.ts.
--
-- ARGV shared by every script (op-specific ARGV follow):
--   ARGV[1] now        ms on the caller's clock; '' = use the store's clock (Redis TIME)
--   ARGV[2] windowMs   W, ms
--   ARGV[3] kind       's' sliding | 'f' fixed (aligned to multiples of W)
--   ARGV[4] limit      L, admits per window
--   ARGV[5] buckets    sub-windows per W in compact mode (0 in exact mode)
--   ARGV[6] marginMs   ms added to a key's expiry past the last instant anything in it counts

-- Numbers cross the wire as text: '%.17g' round-trips every double (integer replies would truncate).
local function num(x)
  return string.format('%.17g', x)
end

local function clock(arg)
  if arg == '' then
    -- TIME is allowed in scripts since Redis 5 (effects replication); whole milliseconds
    local t = redis.call('TIME')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  return tonumber(arg)
end

local NOW = clock(ARGV[1])
local WINDOW = tonumber(ARGV[2])
local FIXED = ARGV[3] == 'f'
local LIMIT = tonumber(ARGV[4])
local BUCKETS = tonumber(ARGV[5])
local MARGIN = tonumber(ARGV[6])

-- The instant an admit made at t stops counting: src/window/expiry.ts, the same float operations.
local function expiry(t)
  if FIXED then
    return (math.floor(t / WINDOW) + 1) * WINDOW
  end
  return t + WINDOW
end

-- Grants live in the key's meta hash as field 'g:<gatewayId>' = '<slots>:<lapse ms>'.
-- Drops lapsed grants; returns the slots other gateways hold, `except`'s own grant (slots and lapse,
-- or 0 and nil) and the latest lapse still outstanding (nil if none).
local function leases(meta, except)
  local all = redis.call('HGETALL', meta)
  local others, mySlots, myLapse, latest = 0, 0, nil, nil
  local mine = except and ('g:' .. except) or nil
  for i = 1, #all, 2 do
    local f = all[i]
    if string.sub(f, 1, 2) == 'g:' then
      local s, e = string.match(all[i + 1], '^(%d+):(.+)$')
      s = tonumber(s)
      e = tonumber(e)
      if e <= NOW then
        redis.call('HDEL', meta, f)
      else
        if f == mine then
          mySlots, myLapse = s, e
        else
          others = others + s
        end
        if latest == nil or e > latest then
          latest = e
        end
      end
    end
  end
  return others, mySlots, myLapse, latest
end

local function setGrant(meta, gw, slots, lapse)
  redis.call('HSET', meta, 'g:' .. gw, slots .. ':' .. num(lapse))
end

-- A key whose log is empty and which has no grant is deleted at once (its seq fields protect
-- nothing: a replayed push of admits that all aged out adds nothing). Otherwise every record of the
-- key expires together, `MARGIN` after the last instant anything in it counts, so idle keys leave
-- Redis by themselves.
local function settle(keys, lastExpiry, latestLapse)
  local deadline = lastExpiry
  if latestLapse ~= nil and (deadline == nil or latestLapse > deadline) then
    deadline = latestLapse
  end
  if deadline == nil or deadline <= NOW then
    redis.call('DEL', unpack(keys))
    return
  end
  local ttl = math.ceil(deadline - NOW + MARGIN)
  for i = 1, #keys do
    redis.call('PEXPIRE', keys[i], ttl)
  end
end
