-- window-exact.lua: the exact sliding log. Included after common.lua in exact mode.
-- The log is a sorted set of runs: score = admit time (ms), member = '<id>*<admits>', one member per
-- run of admits at one instant, whatever its size, so no operation's work grows with a cost or a
-- count. A sync's run is named '<counter>*<count>', the counter kept in the meta record (n, common.lua),
-- so runs at equal times from any gateway stay distinct; a central-log call's admits are one run
-- named 'c:<gw>:<seq>*<cost>', which removeCall finds by name. A member without '*' (written before
-- runs) is one admit. The count in the window is kept in the meta record (a), maintained by
-- prune, add, addCall and removeCall; an empty log counts 0, and a missing count with a non-empty
-- log (the meta hash lost) is recounted once from the runs. Both keys expire together; should the
-- meta hash alone be lost (eviction under a maxmemory policy other than noeviction), the restarted
-- counter collides only with runs made at the very same instant. The meta hash also bounds the
-- runs' times (o no later than the oldest, z no earlier than the newest): while o still
-- counts, a touch reads neither the runs to prune nor those to list as expiring, and z gives the
-- keys' expiry without reading the newest run.
-- Every window module offers: prune, peek, add, addCall, removeCall, oldest, last, expiring, and for
-- sync.lua's plain path held and plainAdd.

-- Each script names its keys in pairs (log, meta): the meta hash of a log, for the count.
local METAOF = {}
for i = 1, #KEYS - 1, 2 do
  METAOF[KEYS[i]] = KEYS[i + 1]
end
-- The count of each log as this script last knew it (set by prune, kept by the writers).
local TOTAL = {}

-- Scores further than this from a cut-off cannot round to the other side of it: the exact rule is
-- then checked on the few entries inside the band.
local function band(x)
  return (math.abs(x) + WINDOW) * 1e-13 + 1e-9
end

-- Admits in one run (member).
local function runCount(member)
  local c = string.match(member, '%*(%d+)$')
  if c then
    return tonumber(c)
  end
  return 1
end

-- The first instant no longer counted at NOW: every run scored below it has aged out.
local function cutoff()
  if FIXED then
    return math.floor(NOW / WINDOW) * WINDOW
  end
  return NOW - WINDOW
end

-- The runs that no longer count at NOW (a prefix: expiry is monotone in t): how many, their admits.
local function aged(log)
  local cut = cutoff()
  local cand = redis.call('ZRANGEBYSCORE', log, '-inf', num(cut + band(cut)), 'WITHSCORES')
  local n, admits = 0, 0
  for i = 1, #cand, 2 do
    if expiry(tonumber(cand[i + 1])) <= NOW then
      n = n + 1
      admits = admits + runCount(cand[i])
    else
      break
    end
  end
  return n, admits
end

-- The count stored for a log that holds `runs` runs (recounted when the field is missing); `stored`
-- is the meta record's a as read (false: none; nil: read it here).
local function storedTotal(log, runs, stored)
  if runs == 0 then
    return 0, false
  end
  local t = stored
  if t == nil then
    t = storedCount(METAOF[log])
  end
  if t then
    return t, false
  end
  local all = redis.call('ZRANGE', log, 0, -1)
  local sum = 0
  for i = 1, #all do
    sum = sum + runCount(all[i])
  end
  return sum, true
end

-- Records a log's count (and time bounds, set by the caller) in its meta record (written by settle).
local function storeTotal(log, m, total)
  TOTAL[log] = total
  m.a = total
  m.dirty = true
end

-- Widens the meta record's time bounds to cover an admit at t (written by storeTotal).
local function cover(m, t)
  if m.o == nil or t < m.o then
    m.o = t
  end
  if m.z == nil or t > m.z then
    m.z = t
  end
end

-- Drops every run that no longer counts at NOW; returns the count, and whether the log existed.
-- While the oldest admit possible (o) still counts, nothing can have aged out: the count is the
-- stored one, and the log is not read (ZCARD only checks it was not lost on its own).
local function prune(log, m)
  if m.a ~= nil and m.a > 0 and m.o ~= nil and m.z ~= nil and expiry(m.o) > NOW then
    if redis.call('ZCARD', log) > 0 then
      TOTAL[log] = m.a
      return m.a, true
    end
  end
  local n, gone = aged(log)
  if n > 0 then
    redis.call('ZREMRANGEBYRANK', log, 0, n - 1)
  end
  local runs = redis.call('ZCARD', log)
  if runs == 0 then
    TOTAL[log] = 0
    if m.a ~= nil or m.o ~= nil or m.z ~= nil or m.e ~= nil then
      m.a, m.o, m.z, m.e = nil, nil, nil, nil
      m.dirty = true
    end
    return 0, n > 0
  end
  local total, recounted = storedTotal(log, runs + n, m.a or false)
  if not recounted then
    total = total - gone
  end
  -- the exact bounds, now that the aged runs are gone
  local first = redis.call('ZRANGE', log, 0, 0, 'WITHSCORES')
  m.o = tonumber(first[2])
  if m.z == nil or m.z < m.o then
    local newest = redis.call('ZRANGE', log, -1, -1, 'WITHSCORES')
    m.z = tonumber(newest[2])
  end
  storeTotal(log, m, total)
  return total, true
end

local function endExpiry(log, at)
  local e = redis.call('ZRANGE', log, at, at, 'WITHSCORES')
  if #e == 0 then
    return nil
  end
  return expiry(tonumber(e[2]))
end

-- The count at NOW and the oldest counted admit's expiry (nil if none), writing nothing.
local function peek(log)
  local runs = redis.call('ZCARD', log)
  if runs == 0 then
    return 0, nil
  end
  local n, gone = aged(log)
  if n == runs then
    return 0, nil
  end
  -- stored or recounted, the total still holds the aged runs
  local total = storedTotal(log, runs)
  return total - gone, endExpiry(log, n)
end

local function known(log, m)
  local t = TOTAL[log]
  if t == nil then
    t = prune(log, m)
  end
  return t
end

-- ':<i>' for the i-th run of a touch (formatted once per script). Versions before the meta record
-- named runs '<counter>.<i>*<admits>', their counter the text field 'n', which this version neither
-- reads nor deletes: one still running beside this one (a rolling upgrade) goes on with its own
-- counter and names, and no run of either can take the name of a live run of the other (ZADD would
-- move that run instead of adding one: admits lost).
local DOT = {}
local function dot(i)
  local d = DOT[i]
  if d == nil then
    d = ':' .. i
    DOT[i] = d
  end
  return d
end

-- Adds counts[i] admits (1 without counts) at each times[i] (ms): one run each, named
-- '<counter>.<i>*<admits>' with the counter moved once per touch. `texts`, if given, holds the
-- times as the caller wrote them (what num() would give back), so they need no formatting here.
local function add(log, m, times, counts, texts)
  local total = known(log, m)
  m.n = m.n + 1
  local base = int(m.n)
  -- ZADD in slices: unpack() of a huge table would overflow Lua's C stack
  local args = {}
  for i = 1, #times do
    local c = counts and counts[i] or 1
    if c > 0 then
      total = total + c
      args[#args + 1] = texts and texts[i] or num(times[i])
      args[#args + 1] = base .. dot(i) .. '*' .. int(c)
      cover(m, times[i])
      if #args == 2000 then
        redis.call('ZADD', log, unpack(args))
        args = {}
      end
    end
  end
  if #args > 0 then
    redis.call('ZADD', log, unpack(args))
  end
  storeTotal(log, m, total)
end

-- seq as the caller wrote it (both scripts pass the same ARGV text)
local function callName(gw, seq, cost)
  return 'c:' .. gw .. ':' .. seq .. '*' .. int(cost)
end

-- Adds `cost` admits at t made by one central-log call, as one run named after it so that
-- removeCall can find it; returns the admits added (0 if the call's run is in the log already).
local function addCall(log, m, t, cost, gw, seq)
  local total = known(log, m)
  if redis.call('ZADD', log, num(t), callName(gw, seq, cost)) == 0 then
    return 0
  end
  cover(m, t)
  storeTotal(log, m, total + cost)
  return cost
end

-- Removes a central-log call's admits, if they are in the log; returns how many. The time bounds
-- stay bounds.
local function removeCall(log, m, gw, seq, cost)
  local total = known(log, m)
  if redis.call('ZREM', log, callName(gw, seq, cost)) == 0 then
    return 0
  end
  cost = tonumber(cost)
  storeTotal(log, m, total - cost)
  return cost
end

-- Expiry of the oldest counted admit (nil if none).
local function oldest(log)
  return endExpiry(log, 0)
end

-- Expiry of the newest counted admit (nil if none), or a later instant (an admit removed since).
local function last(log, m)
  if m.z ~= nil then
    return expiry(m.z)
  end
  return endExpiry(log, -1)
end

-- Appends to `out` pairs (expiry, how many admits expire then) for every counted admit expiring
-- before `horizon`, ascending. Nothing to read while the oldest admit possible expires at or after it.
local function expiring(log, m, horizon, out)
  if m.o ~= nil and expiry(m.o) >= horizon then
    return
  end
  local hi
  if FIXED then
    hi = (math.ceil(horizon / WINDOW) - 1) * WINDOW
  else
    hi = horizon - WINDOW
  end
  local cand = redis.call('ZRANGEBYSCORE', log, '-inf', num(hi + band(hi)), 'WITHSCORES')
  local prev, run = nil, 0
  for i = 1, #cand, 2 do
    local e = expiry(tonumber(cand[i + 1]))
    if e >= horizon then
      break
    end
    local c = runCount(cand[i])
    if e == prev then
      run = run + c
    else
      if prev ~= nil then
        out[#out + 1] = num(prev)
        out[#out + 1] = run
      end
      prev, run = e, c
    end
  end
  if prev ~= nil then
    out[#out + 1] = num(prev)
    out[#out + 1] = run
  end
end

-- Runs in the log (0: it is gone or empty). For sync.lua's plain path, which then reads no more of it.
local function held(log)
  return redis.call('ZCARD', log)
end

-- sync.lua's plain path: adds k runs, v[2j - 1] the time and v[2j] the admits of run j, as add()
-- adds those that still count at NOW (numbered among them, one member each, the counter `n` moved
-- once). Returns the admits added, the counter after, and the earliest and latest time added.
local function plainAdd(log, n, v, k)
  local args, base, x, pushed, lo, hi = nil, nil, 0, 0, nil, nil
  for j = 1, 2 * k, 2 do
    local t = v[j]
    if expiry(t) > NOW then
      x = x + 1
      local c = v[j + 1]
      if c > 0 then
        if args == nil then
          args = {}
          n = n + 1
          base = int(n)
          lo, hi = t, t
        elseif t < lo then
          lo = t
        elseif t > hi then
          hi = t
        end
        pushed = pushed + c
        args[#args + 1] = numOnce(t)
        args[#args + 1] = base .. dot(x) .. '*' .. numOnce(c)
      end
    end
  end
  if args ~= nil then
    redis.call('ZADD', log, unpack(args))
  end
  return pushed, n, lo, hi
end
