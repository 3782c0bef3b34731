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

-- An integer of up to 15 digits (every ms timestamp and count) as '%d' digits, which are the ones
-- '%.17g' and '%.0f' would give, without glibc's arbitrary-precision float printing (that was an
-- eighth of a sync's instructions in Redis); nil for anything else.
local function intDigits(x)
  if x == math.floor(x) and x > -1e15 and x < 1e15 then
    return string.format('%d', x)
  end
  return nil
end

-- Numbers cross the wire as text: '%.17g' round-trips every double (integer replies would truncate).
local function num(x)
  return intDigits(x) or string.format('%.17g', x)
end

-- An integer as digits (tostring would write 1e+15).
local function int(x)
  return intDigits(x) or string.format('%.0f', x)
end

-- num(x), formatted once per script call: a chunk's keys share most of their admit times and counts.
-- Not for NaN (no table key): callers pass times that still count and counts above 0.
local TEXT = {}
local function numOnce(x)
  local s = TEXT[x]
  if s == nil then
    s = num(x)
    TEXT[x] = s
  end
  return s
end

local unpackDoubles = struct.unpack

-- Up to this many runs (time, admits) are unpacked by one struct.unpack (its results go on Lua's C
-- stack); also the most runs one member of an exact log holds (window-exact.lua).
local UNPACK_RUNS = 32
local RUN_FORMAT = {}
local function runFormat(k)
  local f = RUN_FORMAT[k]
  if f == nil then
    f = '<' .. string.rep('d', 2 * k)
    RUN_FORMAT[k] = f
  end
  return f
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

-- The meta hash of a key: field 'c' (compact mode: 'C', see RECORD) = the key's record, five
-- little-endian doubles (struct '<ddddd'):
-- n = the log's member counter (window-exact.lua), a = the admits its log counts, o / z = bounds on the admit times in
-- its log (no run older than o, none newer than z; they let a touch skip reading the log when
-- nothing in it can have aged out, and give the key's expiry; see the window modules), e = the
-- instant the key's records expire at (see settle); NaN for a value absent (n: 0). One binary field
-- rather than one text each: no strtod or float formatting per value, fewer arguments to Redis (a
-- fifth of a key-sync's Redis instructions in exact mode, a sixth in compact mode). A hash written before the record has the five as text
-- fields 'n', 'a', 'o', 'z', 'e': 'a', 'o', 'z', 'e' are read (over the record, as the newer, were
-- both there) and the touch's write of the record deletes them; 'n' is left alone (runs are named
-- apart from that version's: window-exact.lua).
-- Per gateway: 'q:<gw>' = the seq of the last sync
-- of gateway gw that pushed admits here, 'g:<gw>' = '<lapse ms>:<tag>:<slots>[:<tag>:<slots>...]',
-- gw's outstanding grant in parts tagged by the call that made them (see grantTag below),
-- 'v:<gw>' = '<seq>:<until ms>': gw's central-log calls up to seq are void until then (void.lua).
-- Compact mode only: the buckets (window-buckets.lua). Exact mode only: 'G' = '1' while the hash
-- holds a grant or a void (set and cleared by settle; compact mode marks that by the record's n).
-- It is read once per key into a table; writes are gathered in `m.w` (and `m.dirty`: the record
-- changed) and sent as one HSET.
-- A grant's parts share one lapse: the gateway stops spending at `lapse`; the store counts the slots
-- until `till` = expiry(lapse), so slots spent before the lapse and not yet pushed (a gateway cut off
-- past its lease TTL) are never granted again while they could still count. Tags: a sync with seq s
-- makes parts tagged 2s; an ask sent after the gateway built sync s, 2s + 1. A sync with seq s
-- releases the parts tagged below 2s: what the gateway held when it built that sync, whatever order
-- the calls land in.
local function parseGrant(v)
  local f = {}
  for x in string.gmatch(v, '[^:]+') do
    f[#f + 1] = tonumber(x)
  end
  local g = { lapse = f[1], parts = {}, slots = 0 }
  if #f == 2 then
    -- written by a version without tags ('<slots>:<lapse>'): one part, released by any sync
    g.lapse = f[2]
    g.parts = { 0, f[1] }
    g.slots = f[1]
  else
    for i = 2, #f - 1, 2 do
      g.parts[#g.parts + 1] = f[i]
      g.parts[#g.parts + 1] = f[i + 1]
      g.slots = g.slots + f[i + 1]
    end
  end
  g.till = expiry(g.lapse)
  return g
end

local NONE = 0 / 0
-- Compact mode's record n (see settle): no grant or void held; one held. 0 (or a record written by
-- the version before, which marked a hash by field 'G'): not known, the general path reads the hash.
local MARK_CLEAR, MARK_HELD = 1, 2
local packRecord, unpackRecord = struct.pack, struct.unpack

-- The record's field: 'c' in exact mode; 'C' in compact mode, whose buckets are fields of the meta
-- hash (window-buckets.lua): a hash holding 'c' there was written (or touched since) by a version
-- that kept them in a hash of their own.
local RECORD = BUCKETS > 0 and 'C' or 'c'

-- x, or nil for the record's NaN.
local function opt(x)
  if x ~= x then
    return nil
  end
  return x
end

-- The record 'c' of meta table m (see above).
local function record(m)
  return packRecord('<ddddd', m.n, m.a or NONE, m.o or NONE, m.z or NONE, m.e or NONE)
end

-- The record's five values (n, a, o, z, e; nil for absent) from field 'c' as read.
local function unrecord(c)
  local n, a, o, z, e = unpackRecord('<ddddd', c)
  return n, opt(a), opt(o), opt(z), opt(e)
end

-- The fields written before the record, as text. Not 'n', the old run counter: left as it is for a
-- version before the record still writing beside this one (see dot() in window-exact.lua).
local LEGACY = { a = true, o = true, z = true, e = true }

-- `all`: the hash as HGETALL gave it, when the caller read it already; or its record alone (a string)
-- when the caller read that the hash holds no grant or void.
local function readMeta(meta, all)
  if type(all) == 'string' then
    -- sync.lua's read in exact mode: the record, and no mark 'G', so no grant or void: nothing more
    -- to read (a version before the record writing beside this one is not a case: decision 0009)
    local m = { key = meta, seq = {}, grants = {}, voids = {}, w = {}, existed = true, fresh = false, all = {} }
    m.n, m.a, m.o, m.z, m.e = unrecord(all)
    m.recorded = true
    return m
  end
  if all == nil or all.partial then
    -- (partial: the fields sync.lua's plain path needs in compact mode, window-buckets.lua's plainRead)
    all = redis.call('HGETALL', meta)
  end
  local m = {
    key = meta,
    n = 0,
    seq = {},
    grants = {},
    voids = {},
    voidUntil = nil,
    w = {},
    existed = #all > 0,
    fresh = #all == 0,
    all = all,
  }
  local text = nil
  for i = 1, #all, 2 do
    local f, v = all[i], all[i + 1]
    local kind = string.sub(f, 1, 2)
    if f == RECORD then
      m.n, m.a, m.o, m.z, m.e = unrecord(v)
      m.recorded = true
    elseif f == 'c' then
      -- compact mode: the record of a version keeping the buckets apart (window-buckets.lua folds)
      m.earlier = true
    elseif f == 'G' then
      m.marked = true
    elseif LEGACY[f] then
      text = text or {}
      text[f] = tonumber(v)
    elseif kind == 'q:' then
      m.seq[string.sub(f, 3)] = tonumber(v)
    elseif kind == 'g:' then
      m.grants[string.sub(f, 3)] = parseGrant(v)
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
  if text ~= nil then
    -- written by a version before the record (or by one still running beside this one, after the
    -- record): the text is the newer. Converted by this touch.
    m.legacy = {}
    for f, v in pairs(text) do
      m.legacy[#m.legacy + 1] = f
      m[f] = v
    end
    m.dirty = true
  end
  return m
end

-- The count field a of a meta hash, read alone (false if absent).
local function storedCount(meta)
  local v = redis.call('HMGET', meta, 'c', 'a')
  if v[2] then
    return tonumber(v[2])
  end
  if v[1] then
    local _, a = unrecord(v[1])
    return a or false
  end
  return false
end

local function metaSet(m, field, value)
  m.w[#m.w + 1] = field
  m.w[#m.w + 1] = value
end

local function writeGrant(m, gw, g)
  if #g.parts == 0 then
    m.grants[gw] = nil
    redis.call('HDEL', m.key, 'g:' .. gw)
    return
  end
  local v = { num(g.lapse) }
  for i = 1, #g.parts do
    v[#v + 1] = num(g.parts[i])
  end
  metaSet(m, 'g:' .. gw, table.concat(v, ':'))
end

-- Drops grants no longer counted, and hands back `except`'s parts tagged below `releaseBelow` (when
-- given); returns the slots other gateways hold, `except`'s remaining grant (slots and lapse, or 0
-- and nil) and the latest instant any grant is still counted.
local function leases(m, except, releaseBelow)
  local others, mySlots, myLapse, latest = 0, 0, nil, nil
  if next(m.grants) == nil then
    return others, mySlots, myLapse, latest
  end
  local gone = {}
  for gw, g in pairs(m.grants) do
    if g.till <= NOW then
      gone[#gone + 1] = 'g:' .. gw
      m.grants[gw] = nil
    else
      if gw == except then
        if releaseBelow ~= nil and g.parts[1] < releaseBelow then
          local kept = {}
          local slots = 0
          for i = 1, #g.parts, 2 do
            if g.parts[i] >= releaseBelow then
              kept[#kept + 1] = g.parts[i]
              kept[#kept + 1] = g.parts[i + 1]
              slots = slots + g.parts[i + 1]
            end
          end
          g.parts = kept
          g.slots = slots
          if #kept == 0 then
            gone[#gone + 1] = 'g:' .. gw
            m.grants[gw] = nil
          else
            writeGrant(m, gw, g)
          end
        end
        if m.grants[gw] ~= nil then
          mySlots, myLapse = g.slots, g.lapse
        end
      else
        others = others + g.slots
      end
      if m.grants[gw] ~= nil and (latest == nil or g.till > latest) then
        latest = g.till
      end
    end
  end
  if #gone > 0 then
    redis.call('HDEL', m.key, unpack(gone))
  end
  return others, mySlots, myLapse, latest
end

-- Slots of gw's part tagged `tag` (0 if none).
local function partSlots(m, gw, tag)
  local g = m.grants[gw]
  if g == nil then
    return 0
  end
  for i = 1, #g.parts, 2 do
    if g.parts[i] == tag then
      return g.parts[i + 1]
    end
  end
  return 0
end

-- Parts kept per grant; past it the two oldest merge under the newer tag (handed back later, never earlier).
local MAX_PARTS = 8

-- Adds `n` slots tagged `tag` to gw's grant; every part then lapses at `lapse` or later. Returns the
-- grant's lapse, and `latest` (the latest instant a grant of the key stops being counted; nil: none
-- known) moved on to this grant's if it is later.
local function addGrant(m, gw, tag, n, lapse, latest)
  local g = m.grants[gw]
  if g == nil then
    g = { lapse = lapse, parts = {}, slots = 0 }
    m.grants[gw] = g
  elseif lapse > g.lapse then
    g.lapse = lapse
  end
  g.till = expiry(g.lapse)
  local p = g.parts
  local i = #p + 1
  while i > 1 and p[i - 2] > tag do
    i = i - 2
  end
  if i > 1 and p[i - 2] == tag then
    p[i - 1] = p[i - 1] + n
  else
    table.insert(p, i, n)
    table.insert(p, i, tag)
  end
  if #p > 2 * MAX_PARTS then
    p[4] = p[4] + p[2]
    table.remove(p, 1)
    table.remove(p, 1)
  end
  g.slots = g.slots + n
  writeGrant(m, gw, g)
  if latest == nil or g.till > latest then
    latest = g.till
  end
  return g.lapse, latest
end

-- Keys expire up to this much later than they need to, so that a busy key's touches need not move
-- the expiry each time (PEXPIRE was a tenth of a sync's Redis time, and two a touch a seventh).
local SLACK = MARGIN

-- Redis's own clock, read once per call: the instant a key's records expire at (e) is kept on it,
-- the clock PEXPIRE runs on, so that whichever clock decides (the caller's or Redis's) a touch can
-- tell whether the expiry already set covers what it needs.
local REDIS_NOW = nil
local function redisNow()
  if REDIS_NOW == nil then
    REDIS_NOW = ARGV[1] == '' and NOW or clock('')
  end
  return REDIS_NOW
end

-- The TTL (ms) to set on a key's records so that they outlive `want` (an instant on the caller's
-- clock), and the instant on Redis's clock they then expire at; nil while `e` (that instant as last
-- set, or nil) still covers `want`.
local function expiryFor(e, want)
  if e ~= nil and e >= want - NOW + redisNow() then
    return nil, e
  end
  local ttl = math.ceil(want + SLACK - NOW)
  return ttl, redisNow() + ttl
end

-- Ends a key's touch. A key whose log is empty and which holds no grant and no void is deleted at
-- once (its seq fields protect nothing: a replayed push of admits that all aged out adds nothing).
-- Otherwise, when this touch added admits, a grant or a void, every record of the key is set to
-- expire together `MARGIN` (up to `MARGIN + SLACK`) after the last instant anything in it counts,
-- so idle keys leave Redis by themselves; a touch that added nothing only moved that instant
-- earlier, so the expiry already set still covers it. The meta record's e is the instant both
-- keys expire at, set only while the log exists (the log made anew has no expiry yet): a touch whose
-- instant is still covered by e leaves the expiry be.
local function settle(log, m, count, lastExpiry, latestLapse, touched)
  local gone = count == 0 and latestLapse == nil and m.voidUntil == nil
  local ttl = nil
  if (touched or m.refresh) and not gone then
    local deadline = lastExpiry
    if m.refresh and deadline == nil and count > 0 then
      -- a key converted by this touch (window-buckets.lua's fold): its expiry set anew
      deadline = expiry(m.z)
    end
    if latestLapse ~= nil and (deadline == nil or latestLapse > deadline) then
      deadline = latestLapse
    end
    if m.voidUntil ~= nil and (deadline == nil or m.voidUntil > deadline) then
      deadline = m.voidUntil
    end
    local want = deadline + MARGIN
    if count == 0 then
      -- the log is gone: its record's e, if any, was dropped with it (prune)
      ttl = math.ceil(want - NOW)
    else
      ttl, m.e = expiryFor(m.e, want)
      if ttl ~= nil then
        m.dirty = true
      end
    end
  end
  if not gone then
    -- a hash holding a grant or a void is marked, and sync.lua's plain path (reading only the fields
    -- it needs: its first loop, window-buckets.lua's plainRead) leaves it to the general path: by
    -- field 'G' in exact mode; in compact mode by the record's n (MARK_CLEAR or MARK_HELD), which
    -- that mode's buckets leave unused (one field fewer to read, and 'G', absent, was read by
    -- scanning every field of a hash of many buckets). A compact hash marked by 'G' (the version
    -- before) loses it here.
    local held = next(m.grants) ~= nil or m.voidUntil ~= nil
    -- marked before this touch: by 'G' (exact mode, or compact mode's version before) or by n
    local was = m.marked or (BUCKETS > 0 and m.n == MARK_HELD)
    if BUCKETS > 0 then
      local want = held and MARK_HELD or MARK_CLEAR
      if m.n ~= want then
        m.n = want
        m.dirty = true
      end
      if held and m.marked then
        redis.call('HDEL', m.key, 'G')
        m.marked = false
      end
    elseif held and not m.marked then
      metaSet(m, 'G', '1')
      m.marked = true
    end
    if was and not held then
      -- the voids left are spent: gone with the mark ('G' deleted, where there is one)
      local f = { 'G' }
      for i = 1, #m.all, 2 do
        if string.sub(m.all[i], 1, 2) == 'v:' then
          f[#f + 1] = m.all[i]
        end
      end
      redis.call('HDEL', m.key, unpack(f))
      m.marked = false
    end
  end
  if m.dirty then
    metaSet(m, RECORD, record(m))
    m.dirty = false
  end
  if #m.w > 0 then
    redis.call('HSET', m.key, unpack(m.w))
    m.w = {}
    if m.legacy ~= nil then
      redis.call('HDEL', m.key, unpack(m.legacy))
      m.legacy = nil
    end
    if m.fresh and not touched and log ~= m.key then
      -- a meta hash created anew beside a log (it was lost): it takes the log's expiry, so it never
      -- outlives the log unbounded (a touch sets both below)
      local pttl = redis.call('PTTL', log)
      if pttl > 0 then
        redis.call('PEXPIRE', m.key, pttl)
      end
    end
    m.fresh = false
  end
  if gone then
    if touched or m.existed then
      redis.call('DEL', log, m.key)
    end
    return
  end
  if ttl ~= nil then
    if count > 0 and log ~= m.key then
      redis.call('PEXPIRE', log, ttl)
    end
    redis.call('PEXPIRE', m.key, ttl)
  end
end
