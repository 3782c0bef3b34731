-- window-buckets.lua: the compact log. Included after common.lua and window-count.lua in compact mode.
-- The buckets are fields of the key's meta hash, one per sub-window of W / BUCKETS: field = the
-- sub-window's number (bucketOf: digits, a '-' before them for times before 1970; no other field of
-- the hash starts so), value = a zero byte, then the admits and the latest admit time in it (ms) as
-- little-endian doubles (struct '<Bdd': BUCKET_FORMAT; no number parsed or formatted as text, which
-- was a tenth of a key-sync's Redis instructions), or, as versions before wrote it and this one still
-- reads it, '<admits>:<latest admit time>' in text (starting with a digit). A bucket counts until its
-- latest admit's expiry, so the count never falls below the exact one and exceeds it by at most the
-- admits of the one bucket that straddles the window's start (sliding); a fixed window's buckets
-- never straddle. The meta record (field 'C' in this mode, common.lua) keeps the count (a) and bounds
-- on the buckets' latest admit times (o, z), so a touch while no bucket can have aged out reads no
-- bucket but those it adds to, and those from the HGETALL of the meta hash it made already. One key
-- per user key: the buckets cannot be lost apart from their record, and one HSET writes both.
--
-- Versions before kept the buckets in a hash of their own (the `log` key, KEYS[2i-1]) and the record
-- in field 'c'. A meta hash holding 'c' (such a version touched it since this one did), or text
-- fields a/o/z/e (a version before the record), or no record 'C' is folded on its touch (see fold):
-- the bucket hash's live buckets summed into the meta hash's, per bucket number; the bucket hash
-- deleted; 'c' and the text fields deleted; the count and bounds found again from the buckets; the
-- expiry set anew. sync.lua's plain path never takes a hash without 'C'. It reads no more than 'C'
-- and the seq (plainRead), so a hash holding both 'C' and 'c' (an earlier version writing beside
-- this one, which decision 0009 rules out) is folded on its next touch by the general path. The
-- record's n, unused by buckets, marks whether the hash holds a grant or a void (common.lua's settle).
-- Same functions as window-exact.lua.

-- Each script names its keys in pairs (log, meta), but sync.lua in this mode names each key once, by
-- its meta hash (KEYS_PAIRED false: one name less per key to send and to make a Lua string of, 3 % of
-- a key-sync's Redis instructions), and passes it as the log too: its meta hash is itself.
local METAOF = {}
if KEYS_PAIRED then
  for i = 1, #KEYS - 1, 2 do
    METAOF[KEYS[i]] = KEYS[i + 1]
  end
else
  setmetatable(METAOF, { __index = function(_, log)
    return log
  end })
end

-- The bucket hash of versions before (see fold) beside the meta hash of a touch's `log`: the log
-- itself when named apart; else named as the meta hash with kind 'b' for 'm', the letter after the
-- hash tag's '}' (the prefix has no braces: key-names.ts).
local function bucketHashOf(log)
  if METAOF[log] ~= log then
    return log
  end
  local p = string.find(log, '}', 1, true)
  return string.sub(log, 1, p) .. 'b' .. string.sub(log, p + 2)
end

-- The sub-window holding t: BUCKETS per aligned window of W, counted from 0. Found within t's own
-- window, floor(t / W) as expiry() takes it, so a fixed window's buckets never hold an admit of
-- another window; with integer t and W every operation is exact (t / (W / BUCKETS) in floating point
-- put some window starts in the previous window's last bucket).
local BUCKET_OF = {}
local function bucketOf(t)
  local f = BUCKET_OF[t]
  if f ~= nil then
    return f
  end
  local w = math.floor(t / WINDOW)
  local sub = math.floor((t - w * WINDOW) * BUCKETS / WINDOW)
  if sub < 0 then
    sub = 0
  elseif sub >= BUCKETS then
    sub = BUCKETS - 1
  end
  f = int(w * BUCKETS + sub)
  BUCKET_OF[t] = f
  return f
end

-- A bucket's value (see the head of this file), and its admits and latest admit time from it.
local BUCKET_FORMAT = '<Bdd'
local packBucket, unpackBucket = struct.pack, struct.unpack
local function bucketBytes(c, t)
  return packBucket(BUCKET_FORMAT, 0, c, t)
end
local function bucketRead(v)
  if string.byte(v, 1) == 0 then
    local _, c, t = unpackBucket(BUCKET_FORMAT, v)
    return c, t
  end
  local c, t = string.match(v, '^(%d+):(.+)$')
  return tonumber(c), tonumber(t)
end

-- A meta hash field that is a bucket: starts with a digit or '-'.
local function isBucket(f)
  local b = string.byte(f, 1)
  return b == 45 or (b >= 48 and b <= 57)
end

-- The live buckets as last read: { expiry, admits, field, latest admit time } ascending by expiry;
-- nil when this touch has not read them (nothing could have aged out: see prune).
local live = nil
-- The meta table (readMeta) of the touch under way on a log, set by prune: its buckets are read
-- from it, not from Redis (writes are gathered in it until settle). None on sync.lua's plain path.
local TOUCH = {}
local unpackRun = struct.unpack

-- The buckets of meta table m, field -> value as held, the writes of this touch included.
local function bucketMap(m)
  local b = m.buckets
  if b == nil then
    b = {}
    local all = m.all
    for i = 1, #all, 2 do
      local f = all[i]
      if isBucket(f) then
        b[f] = all[i + 1]
      end
    end
    m.buckets = b
  end
  return b
end

local function byExpiry(a, b)
  return a[1] < b[1]
end

-- Reads every bucket into `live`, deleting those that no longer count; returns their admits and
-- whether any bucket was held. From m's buckets when given (the hash as read, or its map once this
-- touch wrote to it), else from the meta hash.
local function scan(log, m)
  local meta, all, b
  if m ~= nil then
    meta, all, b = m.key, m.all, m.buckets
  else
    meta = METAOF[log]
    all = redis.call('HGETALL', meta)
  end
  live = {}
  local gone = {}
  local n = 0
  local any = false
  local function visit(f, v)
    any = true
    local c, t = bucketRead(v)
    local e = expiry(t)
    if e <= NOW then
      gone[#gone + 1] = f
    else
      live[#live + 1] = { e, c, f, t }
      n = n + c
    end
  end
  if b ~= nil then
    for f, v in pairs(b) do
      visit(f, v)
    end
  else
    for i = 1, #all, 2 do
      if isBucket(all[i]) then
        visit(all[i], all[i + 1])
      end
    end
  end
  if #gone > 0 then
    if b ~= nil then
      for i = 1, #gone do
        b[gone[i]] = nil
      end
    end
    redis.call('HDEL', meta, unpack(gone))
  end
  table.sort(live, byExpiry)
  return n, any
end

-- The value of two values of one bucket summed: the later latest admit kept.
local function merged(v1, v2)
  local c1, t1 = bucketRead(v1)
  local c2, t2 = bucketRead(v2)
  if t2 > t1 then
    t1 = t2
  end
  return bucketBytes(c1 + c2, t1)
end

-- Converts a key written by a version that kept the buckets apart (see the head of this file): the
-- bucket hash's live buckets summed into m's, the bucket hash deleted, 'c' deleted (with the text
-- fields: readMeta's m.legacy), the expiry set anew by settle. Returns whether the bucket hash held any.
local function fold(log, m)
  local hash = bucketHashOf(log)
  local old = redis.call('HGETALL', hash)
  local b = bucketMap(m)
  for i = 1, #old, 2 do
    local f, v = old[i], old[i + 1]
    local c, t = bucketRead(v)
    if expiry(t) > NOW then
      if b[f] ~= nil then
        v = merged(b[f], v)
      else
        v = bucketBytes(c, t)
      end
      b[f] = v
      metaSet(m, f, v)
    end
  end
  if #old > 0 then
    redis.call('DEL', hash)
  end
  if m.earlier then
    m.legacy = m.legacy or {}
    m.legacy[#m.legacy + 1] = 'c'
    m.earlier = nil
  end
  m.a, m.o, m.z, m.e = nil, nil, nil, nil
  if m.existed or #old > 0 then
    -- the record written, marking the key converted (a key new to both layouts writes nothing here)
    m.refresh = true
    m.dirty = true
  end
  return #old > 0
end

-- The count at NOW; whether the log existed. While the bucket to expire first (o bounds its
-- latest admit from below) still counts, none has aged out: the stored count holds and the buckets
-- are not read. A key not yet in this layout is folded first.
function prune(log, m)
  TOUCH[log] = m
  live = nil
  local folded = false
  if m.earlier or m.legacy ~= nil or not m.recorded then
    folded = fold(log, m)
  elseif m.a ~= nil and m.a > 0 and m.o ~= nil and m.z ~= nil and expiry(m.o) > NOW then
    TOTAL[log] = m.a
    return m.a, true
  end
  local n, existed = scan(log, m)
  existed = existed or folded
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

-- Adds counts[i] admits (1 without counts) at each times[i] (ms). Without `live` read, the buckets
-- it adds to are taken from the meta hash as read; keeps `live` right when it was. The writes go
-- with the record's (settle).
local function add(log, m, times, counts)
  local total = known(log, m)
  -- the buckets as held, when not read into `live` (or once this touch wrote to them)
  local held = m.buckets
  local byField = {}
  if live ~= nil then
    for i = 1, #live do
      byField[live[i][3]] = live[i]
    end
  else
    held = bucketMap(m)
  end
  for i = 1, #times do
    local t = times[i]
    local f = bucketOf(t)
    local b = byField[f]
    if b == nil then
      b = { 0, 0, f, t }
      byField[f] = b
      if live ~= nil then
        live[#live + 1] = b
      elseif held[f] ~= nil then
        -- a bucket this touch did not read: what it held before (nothing has aged: see prune)
        local c, ht = bucketRead(held[f])
        b[2] = c
        if ht > t then
          b[4] = ht
        end
      end
    end
    local c = counts and counts[i] or 1
    b[2] = b[2] + c
    total = total + c
    if t > b[4] then
      b[4] = t
    end
    b[1] = expiry(b[4])
    b.dirty = true
    cover(m, t)
  end
  for f, b in pairs(byField) do
    if b.dirty then
      local v = bucketBytes(b[2], b[4])
      if held ~= nil then
        held[f] = v
      end
      metaSet(m, f, v)
      b.dirty = nil
    end
  end
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

-- Adds the live buckets among HGETALL reply `all` to n and first.
local function peekBuckets(all, n, first)
  for i = 1, #all, 2 do
    if isBucket(all[i]) then
      local c, t = bucketRead(all[i + 1])
      local e = expiry(t)
      if e > NOW then
        n = n + c
        if first == nil or e < first then
          first = e
        end
      end
    end
  end
  return n, first
end

-- The count at NOW and the oldest counted admit's expiry (nil if none), writing nothing. A key not
-- yet folded counts its bucket hash too.
local function peek(log)
  local all = redis.call('HGETALL', METAOF[log])
  local n, first = peekBuckets(all, 0, nil)
  local folded = false
  for i = 1, #all, 2 do
    local f = all[i]
    if f == 'c' or f == 'a' then
      folded = false
      break
    elseif f == 'C' then
      folded = true
    end
  end
  if not folded then
    n, first = peekBuckets(redis.call('HGETALL', bucketHashOf(log)), n, first)
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
    scan(log, TOUCH[log])
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

-- Expiries of the buckets `l` at ranks r and r + 1, both exact (inf: no such admit).
local function pick(l, r)
  local seen, b0 = 0, nil
  for i = 1, #l do
    seen = seen + l[i][2]
    if b0 == nil and seen > r then
      b0 = l[i][1]
    end
    if seen > r + 1 then
      return b0, l[i][1], 2
    end
  end
  return b0 or math.huge, math.huge, 2
end

-- Expiries of the counted admits at ranks r and r + 1 (0-based, oldest first), as the buckets count
-- them (each until its latest admit's expiry); inf past them. Every bucket is read: their number is
-- bounded by BUCKETS (so both exact, as the buckets count them). Returns as window-exact.lua's: r's
-- two and how many are exact, or with `q` r's two, then q's two and how many of those are exact. For
-- sync.lua's read over the limit (SyncReply.belowLimitAt) and past its horizon (pastHorizonAt).
local function ranked(log, r, q)
  local l = loaded(log)
  if q == nil then
    return pick(l, r)
  end
  local e0, e1 = pick(l, r)
  return e0, e1, pick(l, q)
end

-- For sync.lua's plain path, before it lists a key's expiring buckets: it read no more of them than
-- plainAdd does (they are not loaded; the read takes them from the meta hash as written). Never 0:
-- the buckets are fields of the meta hash whose record sent the key down the plain path, so not lost
-- apart from it (the plain path asks only exact mode's log).
local function held(log)
  live = nil
  TOUCH[log] = nil
  return 1
end

-- sync.lua's plain path in compact mode, per key i, in flat arrays (a table per key, and one growing
-- per bucket, cost more than the commands they fed): PLAIN_GOT, the HMGET reply of plainRead; and of
-- the runs that still count, PLAIN_B the buckets they add to, PLAIN_FIELD / PLAIN_ADMITS / PLAIN_LATEST
-- the bucket's field, admits and latest time (B = 1, the usual case), or tables of them (B > 1),
-- PLAIN_PUSHED their admits, PLAIN_LO / PLAIN_HI their earliest and latest time.
local PLAIN_GOT, PLAIN_B, PLAIN_FIELD, PLAIN_ADMITS, PLAIN_LATEST = {}, {}, {}, {}, {}
local PLAIN_PUSHED, PLAIN_LO, PLAIN_HI = {}, {}, {}

-- sync.lua's first loop in compact mode: what its plain path needs of key i's meta hash `meta`, read
-- with one HMGET rather than the whole hash (HGETALL of a hash of a few buckets cost more, and it
-- grows with them): the record 'C' (its n the mark of a grant or a void, see common.lua's settle,
-- which sends a key to the general path), the seq field (not 'c' or 'a', which only an earlier
-- version writing beside this one would add: see the head of this file; each field read cost about
-- 2 % of a key-sync), and the buckets the key's runs (k of them at `at` in `blob`) add to,
-- when the plain path can take them (no ask). The runs hold `admits` admits from `lo` to `hi` (the
-- gateway's sums): when the earliest still counts and both ends fall in one bucket, so do all runs
-- between (bucketOf never decreases as t grows), and no run is looked at; else each (at most
-- UNPACK_RUNS = 32 runs). Returns the seq field as read (false if none) and the record (false: the
-- general path; nil: no record); for a `carried` key (sync.lua's CHECKED) whose read Redis refused,
-- nil, nil and the error.
local function plainRead(i, meta, seqField, ask, k, blob, at, admits, lo, hi, carried)
  local b, pushed = 0, 0
  local f1, c1, t1, fs, cs, ts = nil, 0, 0, nil, nil, nil
  local one = nil
  if ask == 0 and admits > 0 and (FIXED and (math.floor(lo / WINDOW) + 1) * WINDOW or lo + WINDOW) > NOW then
    one = BUCKET_OF[lo] or bucketOf(lo)
    if one ~= (BUCKET_OF[hi] or bucketOf(hi)) then
      one = nil
    end
  end
  if one ~= nil then
    b, f1, c1, t1, pushed = 1, one, admits, hi, admits
  elseif ask == 0 and k > 0 and k <= UNPACK_RUNS then
    lo, hi = nil, nil
    local pos = at
    for _ = 1, k do
      local t, c
      t, c, pos = unpackRun('<dd', blob, pos)
      local e = FIXED and (math.floor(t / WINDOW) + 1) * WINDOW or t + WINDOW
      if e > NOW then
        local f = BUCKET_OF[t] or bucketOf(t)
        if b == 0 then
          b, f1, c1, t1 = 1, f, c, t
        elseif fs == nil and f == f1 then
          c1 = c1 + c
          if t > t1 then
            t1 = t
          end
        else
          -- a second bucket: runs come in ascending time, so mostly a new one at the end
          if fs == nil then
            fs, cs, ts = { f1 }, { c1 }, { t1 }
          end
          local x = b
          if fs[x] ~= f then
            x = 1
            while x <= b and fs[x] ~= f do
              x = x + 1
            end
            if x > b then
              b = x
              fs[x], cs[x], ts[x] = f, 0, t
            end
          end
          cs[x] = cs[x] + c
          if t > ts[x] then
            ts[x] = t
          end
        end
        pushed = pushed + c
        lo, hi = widened(lo, hi, t)
      end
    end
    if pushed <= 0 then
      b = 0
    end
  end
  -- a carried key's (sync.lua's CHECKED): a refused read is answered, not raised
  local call = carried and redis.pcall or redis.call
  local got
  if b == 0 then
    got = call('HMGET', meta, 'C', seqField)
  elseif fs == nil then
    got = call('HMGET', meta, 'C', seqField, f1)
  else
    got = call('HMGET', meta, 'C', seqField, unpack(fs, 1, b))
  end
  if got.err ~= nil then
    return nil, nil, got.err
  end
  PLAIN_GOT[i], PLAIN_B[i], PLAIN_PUSHED[i], PLAIN_LO[i], PLAIN_HI[i] = got, b, pushed, lo, hi
  if fs == nil then
    PLAIN_FIELD[i], PLAIN_ADMITS[i], PLAIN_LATEST[i] = f1, c1, t1
  else
    PLAIN_FIELD[i], PLAIN_ADMITS[i], PLAIN_LATEST[i] = fs, cs, ts
  end
  local plain = got[1] or nil
  if one == nil and ask == 0 and k > UNPACK_RUNS then
    -- (runs not looked at here: the general path pushes them)
    plain = false
  end
  return got[2], plain
end

-- A bucket's value once admits c with latest time t are added to h, its value as read (false: none).
-- (bucketRead's binary case inline: one Lua call per bucket on sync.lua's plain path, not two.)
local function bucketValue(h, c, t)
  if h then
    local hc, ht
    if string.byte(h, 1) == 0 then
      local _
      _, hc, ht = unpackBucket(BUCKET_FORMAT, h)
    else
      hc, ht = bucketRead(h)
    end
    c = c + hc
    if ht > t then
      t = ht
    end
  end
  return packBucket(BUCKET_FORMAT, 0, c, t)
end

-- sync.lua's plain path: adds key i's runs, as plainRead summed them per bucket, to the buckets as it
-- read them. Returns the admits added, the counter `n` (buckets leave it be), the earliest and latest
-- time added, and the buckets' writes for the caller to send in one HSET with the record's: one
-- bucket's field and value (B = 1), or nil, nil and a table of field, value, ... and its length.
local function plainAdd(_log, n, i)
  local b = PLAIN_B[i]
  if b == 0 then
    return 0, n
  end
  local got = PLAIN_GOT[i]
  local pushed, lo, hi = PLAIN_PUSHED[i], PLAIN_LO[i], PLAIN_HI[i]
  if b == 1 then
    return pushed, n, lo, hi, PLAIN_FIELD[i], bucketValue(got[3], PLAIN_ADMITS[i], PLAIN_LATEST[i])
  end
  local fs, cs, ts = PLAIN_FIELD[i], PLAIN_ADMITS[i], PLAIN_LATEST[i]
  local w = {}
  for x = 1, b do
    w[2 * x - 1] = fs[x]
    w[2 * x] = bucketValue(got[2 + x], cs[x], ts[x])
  end
  return pushed, n, lo, hi, nil, nil, w, 2 * b
end

-- Takes back up to `cost` admits at t (a refund, refund.lua), if t still counts: they were counted in
-- t's bucket, which keeps its latest admit time (it may count past its admits left, as buckets do,
-- never short of them). Returns how many.
local function refundAt(log, m, t, cost)
  if expiry(t) <= NOW then
    return 0
  end
  local total = known(log, m)
  local b = bucketMap(m)
  local f = bucketOf(t)
  local v = b[f]
  if v == nil then
    return 0
  end
  local c, latest = bucketRead(v)
  if latest < t or expiry(latest) <= NOW or c <= 0 then
    return 0
  end
  local k = math.min(c, cost)
  if c == k then
    b[f] = nil
    redis.call('HDEL', m.key, f)
  else
    v = bucketBytes(c - k, latest)
    b[f] = v
    metaSet(m, f, v)
  end
  -- read again from the buckets as they are now when next asked (oldest, last, expiring)
  live = nil
  storeTotal(log, m, total - k)
  return k
end

-- Forgets every admit at or before `at` (<= NOW: a reset, reset.lua): drops each bucket whose latest
-- admit is at or before `at`; returns how many. A bucket with a later admit (one since a reset-all's
-- instant, or a caller's clock ahead of NOW) stays whole: it cannot tell its instants apart (it errs
-- towards counting). Its work follows the buckets, at most BUCKETS + 1 a window.
local function resetThrough(log, m, at)
  local total = known(log, m)
  if total == 0 then
    return 0
  end
  local b = bucketMap(m)
  local gone, removed, left = {}, 0, 0
  local o, z = nil, nil
  for f, v in pairs(b) do
    local c, latest = bucketRead(v)
    if latest <= at then
      gone[#gone + 1] = f
      if expiry(latest) > NOW then
        removed = removed + c
      end
    elseif expiry(latest) > NOW then
      left = left + c
      o, z = widened(o, z, latest)
    end
  end
  for i = 1, #gone do
    b[gone[i]] = nil
  end
  if #gone > 0 then
    redis.call('HDEL', m.key, unpack(gone))
  end
  -- read again from the buckets as they are now when next asked (oldest, last, expiring)
  live = nil
  storeTotal(log, m, left)
  if left == 0 then
    m.a, m.o, m.z, m.e = nil, nil, nil, nil
  else
    m.o, m.z = o, z
  end
  return removed
end
