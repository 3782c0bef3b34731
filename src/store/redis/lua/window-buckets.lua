-- window-buckets.lua: the compact log. Included after common.lua in compact mode.
-- The log is a hash of sub-windows of W / BUCKETS: field = the sub-window's number (bucketOf),
-- value = '<admits>:<latest admit time in it, ms>'. A bucket counts until its latest admit's expiry,
-- so the count never falls below the exact one and exceeds it by at most the admits of the one
-- bucket that straddles the window's start (sliding); a fixed window's buckets never straddle.
-- The meta record keeps the count (a) and bounds on the buckets' latest admit times (o, z), so
-- a touch while no bucket can have aged out reads only the buckets it adds to.
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
  return int(w * BUCKETS + sub)
end

-- The live buckets as last read: { expiry, admits, field, latest admit time } ascending by expiry;
-- nil when this touch has not read them (nothing could have aged out: see prune).
local live = nil
local TOTAL = {}

local function byExpiry(a, b)
  return a[1] < b[1]
end

-- Reads every bucket into `live`, dropping those that no longer count; returns their admits and
-- whether the log existed.
local function scan(log)
  local all = redis.call('HGETALL', log)
  live = {}
  local gone = {}
  local n = 0
  for i = 1, #all, 2 do
    local c, t = string.match(all[i + 1], '^(%d+):(.+)$')
    local e = expiry(tonumber(t))
    if e <= NOW then
      gone[#gone + 1] = all[i]
    else
      c = tonumber(c)
      live[#live + 1] = { e, c, all[i], tonumber(t) }
      n = n + c
    end
  end
  if #gone > 0 then
    redis.call('HDEL', log, unpack(gone))
  end
  table.sort(live, byExpiry)
  return n, #all > 0
end

-- Records the log's count (and the bounds on its buckets' latest admit times, set by the caller)
-- in the meta record (written by settle).
local function storeTotal(log, m, total)
  TOTAL[log] = total
  m.a = total
  m.dirty = true
end

-- The count at NOW; whether the log existed. While the bucket to expire first (o bounds its
-- latest admit from below) still counts, none has aged out: the stored count holds and the buckets
-- are not read (HLEN only checks the log was not lost on its own).
local function prune(log, m)
  if m.a ~= nil and m.a > 0 and m.o ~= nil and m.z ~= nil and expiry(m.o) > NOW then
    if redis.call('HLEN', log) > 0 then
      TOTAL[log] = m.a
      live = nil
      return m.a, true
    end
  end
  local n, existed = scan(log)
  if #live == 0 then
    TOTAL[log] = 0
    if m.a ~= nil or m.o ~= nil or m.z ~= nil or m.e ~= nil then
      m.a, m.o, m.z, m.e = nil, nil, nil, nil
      m.dirty = true
    end
    return 0, existed
  end
  local o, z = live[1][4], live[1][4]
  for i = 2, #live do
    local t = live[i][4]
    if t < o then
      o = t
    end
    if t > z then
      z = t
    end
  end
  m.o, m.z = o, z
  storeTotal(log, m, n)
  return n, existed
end

-- Adds counts[i] admits (1 without counts) at each times[i] (ms). Reads only the buckets it adds
-- to when `live` was not read; keeps `live` right when it was.
local function add(log, m, times, counts, texts)
  local total = TOTAL[log]
  if total == nil then
    total = prune(log, m)
  end
  local byField = {}
  if live ~= nil then
    for i = 1, #live do
      byField[live[i][3]] = live[i]
    end
  end
  local fields = {}
  for i = 1, #times do
    local t = times[i]
    local f = bucketOf(t)
    local b = byField[f]
    if b == nil then
      b = { 0, 0, f, t }
      byField[f] = b
      if live ~= nil then
        live[#live + 1] = b
      else
        fields[#fields + 1] = f
      end
    end
    local c = counts and counts[i] or 1
    b[2] = b[2] + c
    total = total + c
    if t > b[4] then
      b[4] = t
      b.text = texts and texts[i]
    elseif t == b[4] and b.text == nil then
      b.text = texts and texts[i]
    end
    b[1] = expiry(b[4])
    b.dirty = true
    if m.o == nil or t < m.o then
      m.o = t
    end
    if m.z == nil or t > m.z then
      m.z = t
    end
  end
  if #fields > 0 then
    -- buckets this touch did not read: what they held before
    local had = redis.call('HMGET', log, unpack(fields))
    for i = 1, #fields do
      if had[i] then
        local c, t = string.match(had[i], '^(%d+):(.+)$')
        local b = byField[fields[i]]
        b[2] = b[2] + tonumber(c)
        t = tonumber(t)
        if t > b[4] then
          b[4] = t
          b[1] = expiry(t)
          b.text = nil
        end
      end
    end
  end
  local w = {}
  for f, b in pairs(byField) do
    if b.dirty then
      w[#w + 1] = f
      w[#w + 1] = int(b[2]) .. ':' .. (b.text or num(b[4]))
      b.dirty = nil
    end
  end
  redis.call('HSET', log, unpack(w))
  if live ~= nil then
    table.sort(live, byExpiry)
  end
  storeTotal(log, m, total)
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
local function removeCall(_log, _m, _gw, _seq, _cost)
  return 0
end

-- `live` as the log holds it now (read if this touch has not).
local function loaded(log)
  if live == nil then
    scan(log)
  end
  return live
end

local function oldest(log)
  local l = loaded(log)
  if #l == 0 then
    return nil
  end
  return l[1][1]
end

-- The latest expiry of a bucket (from z, the newest admit time).
local function last(log, m)
  if m.z ~= nil then
    return expiry(m.z)
  end
  local l = loaded(log)
  if #l == 0 then
    return nil
  end
  return l[#l][1]
end

local function expiring(log, m, horizon, out)
  if m.o ~= nil and expiry(m.o) >= horizon then
    return
  end
  local live = loaded(log)
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

-- Buckets in the log (0: it is gone or empty). For sync.lua's plain path, which then reads no more
-- of it: the buckets are not loaded.
local function held(log)
  live = nil
  return redis.call('HLEN', log)
end

-- sync.lua's plain path: adds k runs, v[2j - 1] the time and v[2j] the admits of run j, as add()
-- adds those that still count at NOW (their buckets read and written once). Returns the admits
-- added, the counter `n` (buckets leave it be), and the earliest and latest time added.
local function plainAdd(log, n, v, k)
  local fields, adds, lasts = {}, {}, {}
  local pushed, lo, hi = 0, nil, nil
  for j = 1, 2 * k, 2 do
    local t = v[j]
    if expiry(t) > NOW then
      local c = v[j + 1]
      local f = bucketOf(t)
      local b = adds[f]
      if b == nil then
        fields[#fields + 1] = f
        adds[f] = c
        lasts[f] = t
      else
        adds[f] = b + c
        if t > lasts[f] then
          lasts[f] = t
        end
      end
      pushed = pushed + c
      if lo == nil or t < lo then
        lo = t
      end
      if hi == nil or t > hi then
        hi = t
      end
    end
  end
  if pushed == 0 then
    return 0, n, lo, hi
  end
  local had = redis.call('HMGET', log, unpack(fields))
  local w = {}
  for i = 1, #fields do
    local f = fields[i]
    local c, t = adds[f], lasts[f]
    if had[i] then
      local hc, ht = string.match(had[i], '^(%d+):(.+)$')
      c = c + tonumber(hc)
      ht = tonumber(ht)
      if ht > t then
        t = ht
      end
    end
    w[#w + 1] = f
    w[#w + 1] = int(c) .. ':' .. numOnce(t)
  end
  redis.call('HSET', log, unpack(w))
  return pushed, n, lo, hi
end
