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

-- The meta hash of a key: field 'n' = the log's member counter, 'q:<gw>' = the seq of the last sync
-- of gateway gw that pushed admits here, 'g:<gw>' = '<slots>:<lapse ms>', gw's outstanding grant,
-- 'v:<gw>' = '<seq>:<until ms>': gw's central-log calls up to seq are void until then (void.lua).
-- It is read once per key into a table; writes are gathered in `m.w` and sent as one HSET.
local function readMeta(meta)
  local all = redis.call('HGETALL', meta)
  local m = { key = meta, n = 0, seq = {}, grants = {}, voids = {}, voidUntil = nil, w = {}, existed = #all > 0 }
  for i = 1, #all, 2 do
    local f, v = all[i], all[i + 1]
    local kind = string.sub(f, 1, 2)
    if f == 'n' then
      m.n = tonumber(v)
    elseif kind == 'q:' then
      m.seq[string.sub(f, 3)] = tonumber(v)
    elseif kind == 'g:' then
      local s, e = string.match(v, '^(%d+):(.+)$')
      m.grants[string.sub(f, 3)] = { tonumber(s), tonumber(e) }
    elseif kind == 'v:' then
      local q, u = string.match(v, '^([^:]+):(.+)$')
      u = tonumber(u)
      if u > NOW then
        m.voids[string.sub(f, 3)] = { tonumber(q), u }
        if m.voidUntil == nil or u > m.voidUntil then
          m.voidUntil = u
        end
      end
    end
  end
  return m
end

local function metaSet(m, field, value)
  m.w[#m.w + 1] = field
  m.w[#m.w + 1] = value
end

-- Drops lapsed grants (and `release`'s, when given); returns the slots other gateways hold,
-- `except`'s own grant (slots and lapse, or 0 and nil) and the latest lapse still outstanding.
local function leases(m, except, release)
  local others, mySlots, myLapse, latest = 0, 0, nil, nil
  local gone = {}
  for gw, g in pairs(m.grants) do
    if g[2] <= NOW or gw == release then
      gone[#gone + 1] = 'g:' .. gw
      m.grants[gw] = nil
    else
      if gw == except then
        mySlots, myLapse = g[1], g[2]
      else
        others = others + g[1]
      end
      if latest == nil or g[2] > latest then
        latest = g[2]
      end
    end
  end
  if #gone > 0 then
    redis.call('HDEL', m.key, unpack(gone))
  end
  return others, mySlots, myLapse, latest
end

local function setGrant(m, gw, slots, lapse)
  m.grants[gw] = { slots, lapse }
  metaSet(m, 'g:' .. gw, slots .. ':' .. num(lapse))
end

-- Ends a key's touch. A key whose log is empty and which holds no grant and no void is deleted at
-- once (its seq fields protect nothing: a replayed push of admits that all aged out adds nothing).
-- Otherwise, when this touch added admits, a grant or a void, every record of the key is set to
-- expire together `MARGIN` after the last instant anything in it counts, so idle keys leave Redis by
-- themselves; a touch that added nothing only moved that instant earlier, so the expiry already set
-- still covers it.
local function settle(log, m, count, lastExpiry, latestLapse, touched)
  if #m.w > 0 then
    redis.call('HSET', m.key, unpack(m.w))
    m.w = {}
  end
  if count == 0 and latestLapse == nil and m.voidUntil == nil then
    if touched or m.existed then
      redis.call('DEL', log, m.key)
    end
    return
  end
  if not touched then
    return
  end
  local deadline = lastExpiry
  if latestLapse ~= nil and (deadline == nil or latestLapse > deadline) then
    deadline = latestLapse
  end
  if m.voidUntil ~= nil and (deadline == nil or m.voidUntil > deadline) then
    deadline = m.voidUntil
  end
  local ttl = math.ceil(deadline - NOW + MARGIN)
  if count > 0 then
    redis.call('PEXPIRE', log, ttl)
  end
  redis.call('PEXPIRE', m.key, ttl)
end
