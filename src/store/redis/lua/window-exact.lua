-- window-exact.lua: the exact sliding log. Included after common.lua and window-count.lua in exact mode.
-- The log is a sorted set of runs of admits, a run being the admits at one instant, whatever their
-- number, so no operation's work grows with a cost or a count. A member holds one run or several:
--   '/<id>*<admits>'                       one run, scored by its time;
--   '#<k><runs><id>*<admits>'              the k runs one touch added (k one byte, 2 to UNPACK_RUNS),
--                                          <runs> their (time, admits) as little-endian doubles
--                                          (struct '<dd' each: the bytes sync.lua was sent), in time
--                                          order, <admits> their sum; scored by the earliest time.
-- One member per touch rather than one per run: ZADD's work grows with the members a log holds (a
-- listpack is scanned whole), and a key-sync's admits were most of its members. <id> is the key's
-- member counter (n in the meta record, common.lua: the next id free) as 8 bytes, struct '<d' (no
-- number formatting; the plain path takes them from the record as read), moved once per member, so
-- no two members of a key ever share an id. A central-log call's admits
-- are one run named 'c:<gw>:<seq>*<cost>', which removeCall finds by name.
-- Runs written by earlier versions ('<n>:<i>*<admits>', '<n>.<i>*<admits>', or without '*' for one
-- admit) are read as one run each, and no name of this version's can be one of theirs. A member whose
-- earliest run has aged out is replaced by one holding its runs that still count, under its id
-- (prune). The count in the window is kept in the meta record (a), maintained by prune, add, addCall
-- and removeCall; an empty log counts 0, and a missing count with a non-empty log (the meta hash lost)
-- is recounted once from the members. Both keys expire together; should the meta hash alone be lost
-- (eviction under a maxmemory policy other than noeviction), the restarted counter repeats ids, and
-- two members collide only if they hold the very same runs. The meta hash also bounds the runs'
-- times (o no later than the oldest, z no earlier than the newest): while o still counts, a touch
-- reads neither the runs to prune nor those to list as expiring, and z gives the keys' expiry without
-- reading the newest run.
-- Every window module offers: prune, peek, add, addCall, removeCall, oldest, last, expiring, and for
-- sync.lua's plain path held and plainAdd.

-- Each script names its keys in pairs (log, meta): the meta hash of a log, for the count.
local METAOF = {}
for i = 1, #KEYS - 1, 2 do
  METAOF[KEYS[i]] = KEYS[i + 1]
end

-- Scores further than this from a cut-off cannot round to the other side of it: the exact rule is
-- then checked on the few entries inside the band.
local function band(x)
  return (math.abs(x) + WINDOW) * 1e-13 + 1e-9
end

-- Admits in one member (all its runs).
local function runCount(member)
  local c = string.match(member, '%*(%d+)$')
  if c then
    return tonumber(c)
  end
  return 1
end

local PACKED = 35 -- '#': a member of several runs

-- Appends the runs of `member` (scored `score`) to ts (times) and cs (admits).
local function runsOf(member, score, ts, cs)
  if string.byte(member, 1) ~= PACKED then
    ts[#ts + 1] = score
    cs[#cs + 1] = runCount(member)
    return
  end
  local k = string.byte(member, 2)
  local v = { unpackDoubles(runFormat(k), member, 3) }
  for j = 1, 2 * k, 2 do
    ts[#ts + 1] = v[j]
    cs[#cs + 1] = v[j + 1]
  end
end

-- The id of member number n of a key.
local function idOf(n)
  return struct.pack('<d', n)
end

-- The id of a member of several runs.
local function packedId(member)
  local from = 3 + 16 * string.byte(member, 2)
  return string.sub(member, from, from + 7)
end

-- The member named `id` of k runs given as their bytes (struct '<dd' each, in time order), admits
-- their sum: the one place that form is written.
local function packedMember(id, k, runs, admits)
  return '#' .. string.char(k) .. runs .. id .. '*' .. numOnce(admits)
end

-- The member named `id` holding the runs of v (time, admits, ...: k of them, admits summed; scored
-- by the earliest). One run alone has the one-run form unless `packed` (a member replaced as it ages
-- keeps its form, so its runs keep their names: test/support/exact-log.ts).

local function member(id, v, k, admits, packed)
  if k == 1 and not packed then
    return '/' .. id .. '*' .. numOnce(admits)
  end
  return packedMember(id, k, struct.pack(runFormat(k), unpack(v, 1, 2 * k)), admits)
end

-- The member holding runs ts[from..to] (cs their admits) under `id`, as ZADD arguments (score,
-- member) appended to args.
local function memberOf(id, ts, cs, from, to, args)
  local admits, ascending = 0, true
  local w = {}
  for j = from, to do
    if j > from and ts[j] < ts[j - 1] then
      ascending = false
    end
    w[#w + 1] = ts[j]
    w[#w + 1] = cs[j]
    admits = admits + cs[j]
  end
  if not ascending then
    -- a member's runs are kept in time order: aged() reads its last run alone
    local byTime = {}
    for j = from, to do
      byTime[#byTime + 1] = { ts[j], cs[j] }
    end
    table.sort(byTime, function(a, b)
      return a[1] < b[1]
    end)
    for x = 1, #byTime do
      w[2 * x - 1], w[2 * x] = byTime[x][1], byTime[x][2]
    end
  end
  args[#args + 1] = numOnce(w[1])
  args[#args + 1] = member(id, w, to - from + 1, admits)
end

-- The first instant no longer counted at NOW: every run scored below it has aged out.
local function cutoff()
  if FIXED then
    return math.floor(NOW / WINDOW) * WINDOW
  end
  return NOW - WINDOW
end

-- The members whose earliest run no longer counts at NOW (a prefix: expiry is monotone in t): how
-- many, the admits of their runs that no longer count, and, for the members of several runs some of
-- which still count, those runs as new members (ZADD arguments, nil if none: each keeps its id, so
-- its name differs from the old one by its runs alone) and the earliest expiry among them.
local function aged(log)
  local cut = cutoff()
  local cand = redis.call('ZRANGEBYSCORE', log, '-inf', num(cut + band(cut)), 'WITHSCORES')
  local n, admits, keep, keepFirst = 0, 0, nil, nil
  for i = 1, #cand, 2 do
    local m, score = cand[i], tonumber(cand[i + 1])
    if expiry(score) > NOW then
      break
    end
    n = n + 1
    local k = string.byte(m, 1) == PACKED and string.byte(m, 2) or 0
    if k > 0 and expiry(unpackDoubles('<d', m, 3 + 16 * (k - 1))) <= NOW then
      -- its last run has aged out, so all have
      admits = admits + runCount(m)
    elseif k > 0 then
      local ts, cs = {}, {}
      runsOf(m, score, ts, cs)
      local w, left = {}, 0
      for j = 1, #ts do
        if expiry(ts[j]) <= NOW then
          admits = admits + cs[j]
        else
          w[#w + 1] = ts[j]
          w[#w + 1] = cs[j]
          left = left + cs[j]
        end
      end
      -- runs in time order: the first kept is the earliest
      local lo = w[1]
      if lo ~= nil then
        keep = keep or {}
        keep[#keep + 1] = numOnce(lo)
        keep[#keep + 1] = member(packedId(m), w, #w / 2, left, true)
        if keepFirst == nil or expiry(lo) < keepFirst then
          keepFirst = expiry(lo)
        end
      end
    else
      admits = admits + runCount(m)
    end
  end
  return n, admits, keep, keepFirst
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

-- The members that add runs ts, cs (times and admits, in any order), one per UNPACK_RUNS runs, as
-- ZADD arguments appended to args, numbered from n; returns the next number free.
local function membersOf(n, ts, cs, args)
  for from = 1, #ts, UNPACK_RUNS do
    memberOf(idOf(n), ts, cs, from, math.min(#ts, from + UNPACK_RUNS - 1), args)
    n = n + 1
  end
  return n
end

-- ZADD in slices: unpack() of a huge table would overflow Lua's C stack.
local function zaddAll(log, args)
  for from = 1, #args, 2000 do
    redis.call('ZADD', log, unpack(args, from, math.min(#args, from + 1999)))
  end
end

-- The newest admit time in the log (nil if empty): a member is scored by its earliest run, so every
-- member is read.
local function newestTime(log)
  local all = redis.call('ZRANGE', log, 0, -1, 'WITHSCORES')
  local ts, cs = {}, {}
  for i = 1, #all, 2 do
    runsOf(all[i], tonumber(all[i + 1]), ts, cs)
  end
  local z = nil
  for j = 1, #ts do
    if z == nil or ts[j] > z then
      z = ts[j]
    end
  end
  return z
end

-- Drops every run that no longer counts at NOW; returns the count, and whether the log existed.
-- While the oldest admit possible (o) still counts, nothing can have aged out: the count is the
-- stored one, and the log is not read (ZCARD only checks it was not lost on its own).
function prune(log, m)
  if m.a ~= nil and m.a > 0 and m.o ~= nil and m.z ~= nil and expiry(m.o) > NOW then
    if redis.call('ZCARD', log) > 0 then
      TOTAL[log] = m.a
      return m.a, true
    end
  end
  local n, gone, keep = aged(log)
  if n > 0 then
    if keep ~= nil then
      -- the runs of those members that still count, as members of their own, added first so the log
      -- never empties (it would lose its expiry); they sort after the aged ones
      zaddAll(log, keep)
    end
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
    m.z = newestTime(log)
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
  local n, gone, _, keepFirst = aged(log)
  if n == runs and keepFirst == nil then
    return 0, nil
  end
  -- stored or recounted, the total still holds the aged runs
  local total = storedTotal(log, runs)
  local first = n < runs and endExpiry(log, n) or nil
  if keepFirst ~= nil and (first == nil or keepFirst < first) then
    first = keepFirst
  end
  return total - gone, first
end

-- Adds counts[i] admits (1 without counts) at each times[i] (ms), as membersOf() words them, the
-- counter moved once per member; `raw` (optional): the runs as bytes, when every run goes in. Versions before the meta record named runs '<counter>.<i>*<admits>',
-- their counter the text field 'n', which this version neither reads nor deletes: one still running
-- beside this one (a rolling upgrade) goes on with its own counter and names, and no member of either
-- can take the name of a live member of the other (ZADD would move it instead of adding one: admits
-- lost).
local function add(log, m, times, counts, raw)
  local total = known(log, m)
  if raw ~= nil then
    -- sync.lua's general path: every run goes in, ascending, as the bytes `raw` (k > 1)
    local k, pushed = #times, 0
    for i = 1, k do
      pushed = pushed + counts[i]
    end
    cover(m, times[1])
    cover(m, times[k])
    redis.call('ZADD', log, numOnce(times[1]), packedMember(idOf(m.n), k, raw, pushed))
    m.n = m.n + 1
    storeTotal(log, m, total + pushed)
    return
  end
  local ts, cs = {}, {}
  for i = 1, #times do
    local c = counts and counts[i] or 1
    if c > 0 then
      total = total + c
      ts[#ts + 1] = times[i]
      cs[#cs + 1] = c
      cover(m, times[i])
    end
  end
  if #ts > 0 then
    local args = {}
    m.n = membersOf(m.n, ts, cs, args)
    zaddAll(log, args)
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
-- After runs were taken out of a pruned log (a void, a refund, a reset): o set from the log again.
-- Adds and prunes keep o the oldest counted admit's time, and a read that lists no expiry answers
-- with it (sync.lua's oldestOf); taking out the oldest would leave it a bound below that, the removed
-- admit's, and the answer early (test/regressions/redis-oldest-expiry-stale-after-void.live.test.ts).
-- One ZRANGE, on these rare paths only.
local function refreshOldest(log, m)
  local first = redis.call('ZRANGE', log, 0, 0, 'WITHSCORES')
  if #first == 0 then
    m.o = nil
  else
    m.o = tonumber(first[2])
  end
  m.dirty = true
end

local function removeCall(log, m, gw, seq, cost)
  local total = known(log, m)
  if redis.call('ZREM', log, callName(gw, seq, cost)) == 0 then
    return 0
  end
  cost = tonumber(cost)
  storeTotal(log, m, total - cost)
  refreshOldest(log, m)
  return cost
end

-- Expiry of the oldest counted admit (nil if none): a member is scored by its earliest run.
local function oldest(log)
  return endExpiry(log, 0)
end

-- Expiry of the newest counted admit (nil if none), or a later instant (an admit removed since).
local function last(log, m)
  local z = m.z
  if z == nil then
    z = newestTime(log)
    if z == nil then
      return nil
    end
  end
  return expiry(z)
end

local function byFirst(a, b)
  return a[1] < b[1]
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
  -- the runs expiring before horizon, (expiry, admits); a member of several runs may hold some past
  -- it, and its runs interleave with other members': sorted before they are summed per instant
  local ts, cs, sorted = {}, {}, true
  for i = 1, #cand, 2 do
    local m, score = cand[i], tonumber(cand[i + 1])
    if expiry(score) >= horizon then
      break
    end
    if string.byte(m, 1) == PACKED then
      sorted = false
    end
    runsOf(m, score, ts, cs)
  end
  local runs = {}
  for j = 1, #ts do
    local e = expiry(ts[j])
    if e < horizon then
      runs[#runs + 1] = { e, cs[j] }
    end
  end
  if not sorted then
    table.sort(runs, byFirst)
  end
  local prev, run = nil, 0
  for j = 1, #runs do
    local e, c = runs[j][1], runs[j][2]
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

-- Members ranked() reads at most: a key far over its limit holds many (a touch each), and the store's
-- work per key is bounded whatever its count.
local RANK_MEMBERS = 32

-- Expiries of the runs `ts` (ascending, admits `cs`) at ranks r and r + 1, read up to `cut` (see
-- ranked), and how many of the two are exact (inf, no such admit, is exact past a log read whole).
local function pick(ts, cs, cut, r)
  local seen, t0 = 0, nil
  for j = 1, #ts do
    local t = ts[j]
    -- at the cut itself still exact: a run not read there is at the same instant
    if t > cut then
      break
    end
    seen = seen + cs[j]
    if t0 == nil and seen > r then
      t0 = t
    end
    if seen > r + 1 then
      return expiry(t0), expiry(t), 2
    end
  end
  if cut == math.huge then
    return t0 ~= nil and expiry(t0) or math.huge, math.huge, 2
  end
  local bound = expiry(cut)
  if t0 ~= nil then
    return expiry(t0), bound, 1
  end
  return bound, bound, 0
end

-- Expiries of the counted admits at ranks r and r + 1 (0-based, oldest first), for sync.lua's read at
-- the limit or over (SyncReply.belowLimitAt), and with `q` those at ranks q and q + 1 too, from the
-- same read (its read past the horizon, pastHorizonAt; prune has run, or nothing aged: the plain
-- path). Read from the max(r, q) + 2 oldest members, at most RANK_MEMBERS: a member's earliest run is
-- its score, so the run at rank j lies in one of the j + 1 oldest. Every run before the last member
-- read's score is among them (and at it, one at that instant): a rank found up to it is exact, one
-- past it is bounded from below by that score's expiry; past a log read whole, inf. Returns r's two
-- and how many of them are exact, or with q: r's two, then q's two and how many of those are exact.
-- The runs are walked as read when in time order (a gateway's pushes are), else sorted: a table per
-- run and table.sort's calls were most of the cost.
local function ranked(log, r, q)
  local top = r
  if q ~= nil and q > r then
    top = q
  end
  local m = math.min(RANK_MEMBERS, top + 2)
  local cand = redis.call('ZRANGE', log, 0, m - 1, 'WITHSCORES')
  local ts, cs = {}, {}
  for i = 1, #cand, 2 do
    runsOf(cand[i], tonumber(cand[i + 1]), ts, cs)
  end
  local cut = math.huge
  if #cand == 2 * m then
    cut = tonumber(cand[#cand])
  end
  local n = #ts
  for j = 2, n do
    if ts[j] < ts[j - 1] then
      local runs = {}
      for x = 1, n do
        runs[x] = { ts[x], cs[x] }
      end
      table.sort(runs, byFirst)
      for x = 1, n do
        ts[x], cs[x] = runs[x][1], runs[x][2]
      end
      break
    end
  end
  if q == nil then
    return pick(ts, cs, cut, r)
  end
  local e0, e1 = pick(ts, cs, cut, r)
  return e0, e1, pick(ts, cs, cut, q)
end

-- Members in the log (0: it is gone or empty). For sync.lua's plain path, which then reads no more
-- of it.
local function held(log)
  return redis.call('ZCARD', log)
end

-- sync.lua's plain path: adds the k runs (k <= UNPACK_RUNS) at `at` in `blob`, holding `admits`
-- admits from `lo` to `hi` (the gateway's sums), as add() adds those that still count at NOW: one
-- member, its runs the bytes at..at + 16k - 1 of `blob` when every run goes in (the earliest still
-- counts: no run is looked at), its id `id` (idOf(n), as the record holds it). Returns the admits
-- added, the counter `n` after, and the earliest and latest time added.
local function plainAdd(log, n, k, blob, at, id, admits, lo, hi)
  local pushed = admits
  local name
  if pushed > 0 and expiry(lo) > NOW then
    -- every run counts (the earliest does): their bytes as sent, no run looked at
    if k > 1 then
      name = packedMember(id, k, string.sub(blob, at, at + 16 * k - 1), pushed)
    else
      name = '/' .. id .. '*' .. numOnce(pushed)
    end
  else
    local v = { unpackDoubles(runFormat(k), blob, at) }
    local w, x = {}, 0
    pushed, lo, hi = 0, nil, nil
    for j = 1, 2 * k, 2 do
      local t, c = v[j], v[j + 1]
      if c > 0 and expiry(t) > NOW then
        pushed = pushed + c
        lo, hi = widened(lo, hi, t)
        w[#w + 1] = t
        w[#w + 1] = c
        x = x + 1
      end
    end
    if pushed == 0 then
      return 0, n, lo, hi
    end
    name = member(id, w, x, pushed)
  end
  redis.call('ZADD', log, numOnce(lo), name)
  return pushed, n + 1, lo, hi
end

-- A refund's search: the members scored at or before its instant, nearest first, read at most. A
-- member is scored by its earliest run and holds one touch's runs (one gateway's sync of the key, at
-- most UNPACK_RUNS of them), so the one holding an admit at t is among the few that the fleet's
-- syncs wrote around t; past this many the refund takes nothing more (it errs towards counting).
local REFUND_SCAN = 128
-- Members read per step of that search: the one holding t is nearly always the first or second, so
-- a refund reads a page, not all 128 (bench/refund.ts: reading all 128 each time made a refund cost
-- Redis 20-35 times what counting the request did).
local REFUND_PAGE = 4

-- Takes back up to `cost` admits at t (a refund, refund.lua), if t still counts: from the runs at t
-- of the members nearest before it, each rewritten under its id without them (removed if nothing is
-- left). Returns how many. The time bounds stay bounds.
local function refundAt(log, m, t, cost)
  if expiry(t) <= NOW then
    return 0
  end
  local total = known(log, m)
  local left = cost
  -- a first page, then (if it did not hold enough and was full) the whole scan again from the top: a
  -- member that held admits at t holds none now unless the refund was done, so reading it again takes
  -- nothing twice
  local pass = 0
  local size = REFUND_PAGE
  while left > 0 and pass < 2 do
    pass = pass + 1
    local near = redis.call('ZREVRANGEBYSCORE', log, num(t), '-inf', 'WITHSCORES', 'LIMIT', 0, size)
    if #near < 2 * size then
      pass = 2
    end
    size = REFUND_SCAN
    for i = 1, #near, 2 do
      local name = near[i]
      local ts, cs = {}, {}
      runsOf(name, tonumber(near[i + 1]), ts, cs)
      local hit = false
      for j = 1, #ts do
        if left > 0 and ts[j] == t and cs[j] > 0 then
          local k = math.min(cs[j], left)
          cs[j] = cs[j] - k
          left = left - k
          hit = true
        end
      end
      if hit then
        local kt, kc = {}, {}
        for j = 1, #ts do
          if cs[j] > 0 then
            kt[#kt + 1] = ts[j]
            kc[#kc + 1] = cs[j]
          end
        end
        redis.call('ZREM', log, name)
        if #kt > 0 then
          local b = string.byte(name, 1)
          local id
          if b == PACKED then
            id = packedId(name)
          elseif b == 47 then
            -- '/<id>*<admits>': the id is its 8 bytes
            id = string.sub(name, 2, 9)
          else
            -- a central-log call's run, or one an earlier version named: a new id
            id = idOf(m.n)
            m.n = m.n + 1
            m.dirty = true
          end
          local args = {}
          memberOf(id, kt, kc, 1, #kt, args)
          redis.call('ZADD', log, unpack(args))
        end
      end
      if left == 0 then
        break
      end
    end
  end
  local took = cost - left
  if took > 0 then
    storeTotal(log, m, total - took)
    refreshOldest(log, m)
  end
  return took
end

-- Members a reset reads when some run may be newer than NOW (resetThrough): past them it keeps what
-- it did not read (it errs towards counting).
local RESET_SCAN = 128

-- Forgets every admit at or before `at` (<= NOW: a reset, reset.lua); returns how many. When the
-- newest run (z) is at or before `at`, the common case, every member goes with one ZREMRANGEBYSCORE, no member
-- read in Lua: its work is Redis's own, over members that all still count (one per touch: a sync's
-- push, or a central-log call that was admitted), so the fleet's configuration bounds it, never a
-- client's requests. Otherwise (runs after `at`: admits since a reset-all's instant, or a caller's
-- clock ahead of NOW) the RESET_SCAN members scored nearest at or before `at` are read, each
-- rewritten under its id with its runs after `at`, and older members are left as they are.
local function resetThrough(log, m, at)
  local total = known(log, m)
  if total == 0 then
    return 0
  end
  if m.z ~= nil and m.z <= at then
    redis.call('ZREMRANGEBYSCORE', log, '-inf', num(at))
    storeTotal(log, m, 0)
    m.a, m.o, m.z, m.e = nil, nil, nil, nil
    return total
  end
  local near = redis.call('ZREVRANGEBYSCORE', log, num(at), '-inf', 'WITHSCORES', 'LIMIT', 0, RESET_SCAN)
  local removed = 0
  local args = {}
  for i = 1, #near, 2 do
    local name = near[i]
    local ts, cs = {}, {}
    runsOf(name, tonumber(near[i + 1]), ts, cs)
    local kt, kc = {}, {}
    for j = 1, #ts do
      if ts[j] <= at then
        removed = removed + cs[j]
      else
        kt[#kt + 1] = ts[j]
        kc[#kc + 1] = cs[j]
      end
    end
    redis.call('ZREM', log, name)
    if #kt > 0 then
      local id
      if string.byte(name, 1) == PACKED then
        id = packedId(name)
      else
        -- (a one-run member scored at or before `at` holds no run after it: not reached)
        id = idOf(m.n)
        m.n = m.n + 1
        m.dirty = true
      end
      memberOf(id, kt, kc, 1, #kt, args)
    end
  end
  if #args > 0 then
    zaddAll(log, args)
  end
  -- z stays a bound (no earlier than the newest); o is read again, as after a void
  storeTotal(log, m, total - removed)
  if total == removed then
    m.a, m.o, m.z, m.e = nil, nil, nil, nil
  else
    refreshOldest(log, m)
  end
  return removed
end
