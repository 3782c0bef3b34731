-- window-count.lua: what both window modules (window-exact.lua, window-buckets.lua) keep of a log in
-- its meta record besides the admits: the count (a) and the bounds on the admits' times (o no later
-- than the oldest, z no earlier than the newest). Included after common.lua and before the window
-- module (dispatch.lua's {{windowCount}}), so that the two modules write them with the same code.

-- The count of each log as this script last knew it (set by prune, kept by the writers).
local TOTAL = {}

-- The window module's prune(log, m) (declared here, defined there: `function prune`, no `local`):
-- the count at NOW, and whether the log existed.
local prune

-- A log's count: as this script last knew it, else pruned (and so known from now on).
local function known(log, m)
  local t = TOTAL[log]
  if t == nil then
    t = prune(log, m)
  end
  return t
end

-- Records a log's count (and time bounds, set by the caller) in its meta record (written by settle).
local function storeTotal(log, m, total)
  TOTAL[log] = total
  m.a = total
  m.dirty = true
end

-- The bounds lo, hi (nil: none yet) widened to take in t.
local function widened(lo, hi, t)
  if lo == nil or t < lo then
    lo = t
  end
  if hi == nil or t > hi then
    hi = t
  end
  return lo, hi
end

-- Widens the meta record's time bounds to cover an admit at t (written by storeTotal).
local function cover(m, t)
  m.o, m.z = widened(m.o, m.z, t)
end
