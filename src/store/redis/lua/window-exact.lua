-- window-exact.lua: the exact sliding log. Included after common.lua in exact mode.
-- The log is a sorted set: score = admit time (ms), member = '<time>:<counter>', the counter kept in
-- the meta hash (field 'n'), so equal times from any gateway stay distinct members. Both keys expire
-- together; should the meta hash alone be lost (eviction under a maxmemory policy other than
-- noeviction), the restarted counter collides only with admits made at the very same instant.
-- Every window module offers: prune, count, add, oldest, last, expiring.

-- Scores further than this from a cut-off cannot round to the other side of it: the exact rule is
-- then checked on the few entries inside the band.
local function band(x)
  return (math.abs(x) + WINDOW) * 1e-13 + 1e-9
end

-- Drops every admit that no longer counts at NOW (a prefix: expiry is monotone in t); returns the
-- count, and whether the log existed.
local function prune(log)
  local cut
  if FIXED then
    cut = math.floor(NOW / WINDOW) * WINDOW
  else
    cut = NOW - WINDOW
  end
  local b = band(cut)
  local removed = redis.call('ZREMRANGEBYSCORE', log, '-inf', '(' .. num(cut - b))
  local near = redis.call('ZRANGEBYSCORE', log, '-inf', num(cut + b), 'WITHSCORES')
  local n = 0
  for i = 2, #near, 2 do
    if expiry(tonumber(near[i])) <= NOW then
      n = n + 1
    else
      break
    end
  end
  if n > 0 then
    redis.call('ZREMRANGEBYRANK', log, 0, n - 1)
  end
  local count = redis.call('ZCARD', log)
  return count, count + removed + n > 0
end

-- Adds one admit per entry of `times` (ms).
local function add(log, m, times, counts)
  local total = #times
  if counts then
    total = 0
    for i = 1, #counts do
      total = total + counts[i]
    end
  end
  local top = m.n
  m.n = m.n + total
  metaSet(m, 'n', tostring(m.n))
  -- ZADD in slices: unpack() of a huge table would overflow Lua's C stack
  local args = {}
  local k = top
  for i = 1, #times do
    local t = num(times[i])
    for _ = 1, (counts and counts[i] or 1) do
      k = k + 1
      args[#args + 1] = t
      args[#args + 1] = t .. ':' .. k
      if #args == 2000 then
        redis.call('ZADD', log, unpack(args))
        args = {}
      end
    end
  end
  if #args > 0 then
    redis.call('ZADD', log, unpack(args))
  end
end

-- Adds `cost` admits at t made by one central-log call, named after it ('c:<gw>:<seq>:<i>') so that
-- removeCall can find them.
local function addCall(log, m, t, cost, gw, seq)
  local args = {}
  for i = 1, cost do
    args[#args + 1] = num(t)
    args[#args + 1] = 'c:' .. gw .. ':' .. seq .. ':' .. i
  end
  redis.call('ZADD', log, unpack(args))
end

-- Removes a central-log call's admits, if they are in the log; returns how many.
local function removeCall(log, gw, seq, cost)
  local names = {}
  for i = 1, cost do
    names[i] = 'c:' .. gw .. ':' .. seq .. ':' .. i
  end
  return redis.call('ZREM', log, unpack(names))
end

local function endExpiry(log, at)
  local e = redis.call('ZRANGE', log, at, at, 'WITHSCORES')
  if #e == 0 then
    return nil
  end
  return expiry(tonumber(e[2]))
end

-- Expiry of the oldest counted admit (nil if none).
local function oldest(log)
  return endExpiry(log, 0)
end

-- Expiry of the newest counted admit (nil if none).
local function last(log)
  return endExpiry(log, -1)
end

-- Appends to `out` pairs (expiry, how many admits expire then) for every counted admit expiring
-- before `horizon`, ascending.
local function expiring(log, horizon, out)
  local hi
  if FIXED then
    hi = (math.ceil(horizon / WINDOW) - 1) * WINDOW
  else
    hi = horizon - WINDOW
  end
  local cand = redis.call('ZRANGEBYSCORE', log, '-inf', num(hi + band(hi)), 'WITHSCORES')
  local prev, run = nil, 0
  for i = 2, #cand, 2 do
    local e = expiry(tonumber(cand[i]))
    if e >= horizon then
      break
    end
    if e == prev then
      run = run + 1
    else
      if prev ~= nil then
        out[#out + 1] = num(prev)
        out[#out + 1] = run
      end
      prev, run = e, 1
    end
  end
  if prev ~= nil then
    out[#out + 1] = num(prev)
    out[#out + 1] = run
  end
end
