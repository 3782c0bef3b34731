-- window-buckets.lua: the compact log. Included after common.lua in compact mode.
-- The log is a hash of sub-windows of W / BUCKETS: field = floor(t / (W / BUCKETS)),
-- value = '<admits>:<latest admit time in it, ms>'. A bucket counts until its latest admit's expiry,
-- so the count never falls below the exact one and exceeds it by at most the admits of the one
-- bucket that straddles the window's start (sliding); a fixed window's buckets never straddle.
-- Same functions as window-exact.lua.

local WIDTH = WINDOW / BUCKETS
-- The live buckets as read by the last prune: { expiry, admits } ascending by expiry.
local live = {}

local function prune(log)
  local all = redis.call('HGETALL', log)
  live = {}
  local n = 0
  for i = 1, #all, 2 do
    local c, t = string.match(all[i + 1], '^(%d+):(.+)$')
    local e = expiry(tonumber(t))
    if e <= NOW then
      redis.call('HDEL', log, all[i])
    else
      c = tonumber(c)
      live[#live + 1] = { e, c, all[i] }
      n = n + c
    end
  end
  table.sort(live, function(a, b)
    return a[1] < b[1]
  end)
  return n
end

local function byExpiry(a, b)
  return a[1] < b[1]
end

-- Adds one admit per entry of `times` (ms), keeping `live` right for oldest/last/expiring.
local function add(log, _meta, times)
  local touched = {}
  for i = 1, #times do
    local t = times[i]
    local f = tostring(math.floor(t / WIDTH))
    local b = touched[f]
    if b == nil then
      local v = redis.call('HGET', log, f)
      b = { 0, t }
      if v then
        local cs, ts = string.match(v, '^(%d+):(.+)$')
        b = { tonumber(cs), tonumber(ts) }
      end
      touched[f] = b
    end
    b[1] = b[1] + 1
    if t > b[2] then
      b[2] = t
    end
  end
  for f, b in pairs(touched) do
    redis.call('HSET', log, f, b[1] .. ':' .. num(b[2]))
    local found = false
    for i = 1, #live do
      if live[i][3] == f then
        live[i][1], live[i][2], found = expiry(b[2]), b[1], true
      end
    end
    if not found then
      live[#live + 1] = { expiry(b[2]), b[1], f }
    end
  end
  table.sort(live, byExpiry)
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
