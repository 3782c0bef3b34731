-- window-buckets.lua: the compact log. Included after common.lua in compact mode.
-- The log is a hash of sub-windows of W / BUCKETS: field = the sub-window's number (bucketOf),
-- value = '<admits>:<latest admit time in it, ms>'. A bucket counts until its latest admit's expiry,
-- so the count never falls below the exact one and exceeds it by at most the admits of the one
-- bucket that straddles the window's start (sliding); a fixed window's buckets never straddle.
-- Same functions as window-exact.lua.

-- The sub-window holding t: BUCKETS per aligned window of W, counted from 0. Found within t's own
-- window, floor(t / W) as expiry() takes it, so a fixed window's buckets never hold an admit of
-- another window; with integer t and W every operation is exact (t / (W / BUCKETS) in floating point
-- put some window starts in the previous window's last bucket).
local function bucketOf(t)
  local w = math.floor(t / WINDOW)
  local sub = math.floor((t - w * WINDOW) * BUCKETS / WINDOW)
  if sub < 0 then
    sub = 0
  elseif sub >= BUCKETS then
    sub = BUCKETS - 1
  end
  return string.format('%.0f', w * BUCKETS + sub)
end

-- The live buckets as read by the last prune: { expiry, admits } ascending by expiry.
local live = {}

local function prune(log)
  local all = redis.call('HGETALL', log)
  live = {}
  local existed = #all > 0
  local n = 0
  for i = 1, #all, 2 do
    local c, t = string.match(all[i + 1], '^(%d+):(.+)$')
    local e = expiry(tonumber(t))
    if e <= NOW then
      redis.call('HDEL', log, all[i])
    else
      c = tonumber(c)
      live[#live + 1] = { e, c, all[i], tonumber(t) }
      n = n + c
    end
  end
  table.sort(live, function(a, b)
    return a[1] < b[1]
  end)
  return n, existed
end

local function byExpiry(a, b)
  return a[1] < b[1]
end

-- Adds counts[i] admits (1 without counts) at each times[i] (ms), keeping `live` right for
-- oldest/last/expiring. Every bucket that exists is in `live`: prune ran first and dropped the others.
local function add(log, _m, times, counts)
  local byField = {}
  for i = 1, #live do
    byField[live[i][3]] = live[i]
  end
  local w = {}
  for i = 1, #times do
    local t = times[i]
    local f = bucketOf(t)
    local b = byField[f]
    if b == nil then
      b = { 0, 0, f, t }
      byField[f] = b
      live[#live + 1] = b
    end
    b[2] = b[2] + (counts and counts[i] or 1)
    if t > b[4] then
      b[4] = t
    end
    b[1] = expiry(b[4])
    b.dirty = true
  end
  for f, b in pairs(byField) do
    if b.dirty then
      w[#w + 1] = f
      w[#w + 1] = string.format('%.0f', b[2]) .. ':' .. num(b[4])
      b.dirty = nil
    end
  end
  redis.call('HSET', log, unpack(w))
  table.sort(live, byExpiry)
end

-- A central-log call's admits: a bucket keeps counts, not names. Returns the admits added.
local function addCall(log, m, t, cost, _gw, _seq)
  add(log, m, { t }, { cost })
  return cost
end

-- The count at NOW and the oldest counted admit's expiry (nil if none), writing nothing.
local function peek(log)
  local all = redis.call('HGETALL', log)
  local n, first = 0, nil
  for i = 1, #all, 2 do
    local c, t = string.match(all[i + 1], '^(%d+):(.+)$')
    local e = expiry(tonumber(t))
    if e > NOW then
      n = n + tonumber(c)
      if first == nil or e < first then
        first = e
      end
    end
  end
  return n, first
end

-- Compact mode cannot tell a call's admits from others in its bucket: none are removed (the void
-- still refuses the call if it lands later).
local function removeCall(_log, _gw, _seq, _cost)
  return 0
end

local function oldest(_log)
  if #live == 0 then
    return nil
  end
  return live[1][1]
end

local function last(_log)
  if #live == 0 then
    return nil
  end
  return live[#live][1]
end

local function expiring(_log, horizon, out)
  local prev = nil
  for i = 1, #live do
    local e = live[i][1]
    if e >= horizon then
      break
    end
    if e == prev then
      out[#out] = out[#out] + live[i][2]
    else
      out[#out + 1] = num(e)
      out[#out + 1] = live[i][2]
      prev = e
    end
  end
end
