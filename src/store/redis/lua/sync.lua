-- sync.lua: one gateway's sync for a chunk of keys (all in one cluster slot). Per key, in order:
-- hand back this gateway's grant as it held it when it built this sync (release: the parts tagged
-- below 2·seq), push its admits, grant up to `ask` (a part tagged 2·seq; a retry that finds that
-- part answers with it), read the window.
-- KEYS[2i-1] log_i   key i's window log
-- KEYS[2i]   meta_i  key i's meta hash (see log-admit.lua)
--            In compact mode (KEYS_PAIRED false, script.ts), KEYS[i] = meta_i alone, the log being
--            the meta hash itself (window-buckets.lua).
-- ARGV[1..6]         as in common.lua (now ms, windowMs, kind, limit, buckets, marginMs)
-- ARGV[7]  gatewayId
-- ARGV[8]  seq        this gateway's sync number; a key records the last one that pushed admits to it
-- ARGV[9]  leaseTtlMs ms a grant stays outstanding without a sync
-- ARGV[10] horizonMs  list expiries up to this many ms after now
-- ARGV[11] the entries, packed: little-endian doubles (struct '<d'), per key i in KEYS order:
--          flags (1 read, 2 release, summed), ask (slots), n (runs of admits pushed), the admits in
--          them, the earliest and the latest run's time, then n pairs: admit time (ms, ascending),
--          admits at it. The three sums let the plain path skip the runs when all of them count, and,
--          in compact mode, fall in one bucket (looking at each run was a tenth of a key-sync's Redis
--          instructions at three runs, and grew with them). One binary argument instead of one text per
--          number: no per-number string on either side (a string per argument was most of the
--          gateway's sync CPU, and each costs Redis an object and an interned Lua string).
-- Reply: { head, then per key its p pairs (expiry ms as text, admits) }, where head is one binary string
--        of little-endian doubles (struct '<d'): the store's now ms, then per key count, granted, grant
--        lapse ms, p, and for a key with flag 2 (release: the lease designs) two more, the oldest
--        counted admit's expiry ms (inf: none) and the slots neither admitted nor granted after it;
--        for a key with flag 1 alone (read: the shared-counter family) and p = 0, one more, that
--        oldest expiry (a read listing expiries has its first: the gateway needs none then); for a
--        key with flag 1 alone and count >= limit, two more after those, the instants the count
--        falls below limit and limit - 1 (belowLimit; -inf: no bound).
--        Four doubles per key instead of four reply values: the gateway reads them in place
--        (each reply value was a JS value to parse and collect, most of the gateway's decoding).
-- A seq older than one a key already applied is an error, and nothing is written by this call.
-- A key named twice is read once per entry; both entries see the replay state from before the call.

local gw = ARGV[7]
local seq = tonumber(ARGV[8])
-- entries in this call (see KEYS above)
local NKEYS = KEYS_PAIRED and #KEYS / 2 or #KEYS
local ttl = tonumber(ARGV[9])
local horizon = NOW + tonumber(ARGV[10])
local seqField = 'q:' .. gw
-- A key's seq field as read is mostly this sync's (a retry) or the one before (a key pushed every
-- sync): known by these texts without parsing (tonumber was 2 % of a key-sync).
local SEQ_TEXT, PREV_TEXT = ARGV[8], int(seq - 1)
-- The reply's head, one string per key (see Reply above); joined at the end.
local packHead = struct.pack
local HEAD = { packHead('<d', NOW) }

local blob = ARGV[11]

-- Carried keys (dispatch.lua's merge): Redis checked the declared keys, those of the first carried
-- call (user keys 1..CHECKED), that this node serves them; the others are checked here, by the
-- first loop's reads of each of their names, before anything is written: a read Redis refuses (a
-- slot served elsewhere, or mid-migration and a name not here) ends the call with NONLOCAL, having
-- run nothing, and the client sends the carried calls one by one. In exact mode that read of the
-- log is the plain path's held(), done early (HELD).
local CHECKED = NKEYS
-- Carried calls' entries come one blob per call (dispatch.lua's merge: joining them was a copy of
-- the sync and its garbage): BLOB_OF[i], key i's; `blobCut`, the first key of the next call's.
local BLOBS, BLOB_OF, blobCut, blobCall = fleetlimitBlobs, nil, NKEYS + 1, 1
if fleetlimitSplit ~= nil then
  CHECKED = KEYS_PAIRED and fleetlimitSplit[1] / 2 or fleetlimitSplit[1]
  BLOB_OF, blobCut = {}, CHECKED + 1
end
local HELD = {}

-- Parse the entries and check every key's seq before writing anything. Per key, in flat arrays (a
-- table per key was a tenth of the script's time): flags, ask, runs, the runs' offset in `blob`,
-- whether this is a replay, the meta hash as read for readMeta (exact mode: the record when the hash
-- holds no grant or void; else PARTIAL), and its record when the plain path may take the key (the
-- hash holds nothing but the record and seqs; else false).
local FLAGS, ASK, RUNS, FIRST, REPLAY, ALL, PLAIN = {}, {}, {}, {}, {}, {}, {}
-- and the admits, the earliest and the latest run's time
local ADMITS, LO, HI = {}, {}, {}
-- readMeta's `all` for a hash read in part: it reads the whole hash
local PARTIAL = { partial = true }
local at = 1
for i = 1, NKEYS do
  if BLOB_OF ~= nil then
    while i == blobCut do
      blobCall = blobCall + 1
      blob, at = BLOBS[blobCall], 1
      blobCut = blobCut + (KEYS_PAIRED and fleetlimitSplit[blobCall] / 2 or fleetlimitSplit[blobCall])
    end
    BLOB_OF[i] = blob
  end
  local flags, ask, n, admits, lo, hi
  flags, ask, n, admits, lo, hi, at = unpackDoubles('<dddddd', blob, at)
  -- q: the seq field as read (false: none)
  local all, q, plain = PARTIAL, nil, nil
  if BUCKETS > 0 then
    -- compact mode: only what the plain path needs, the seq and the record among it
    -- (window-buckets.lua); the general path reads the whole hash (PARTIAL)
    local refused
    q, plain, refused = plainRead(i, KEYS[i], seqField, ask, n, blob, at, admits, lo, hi, i > CHECKED)
    if refused then
      return redis.error_reply('NONLOCAL ' .. refused)
    end
  else
    -- exact mode: the record, the seq and the mark of a grant or void ('G', common.lua's settle): a
    -- fixed read, where HGETALL grew with the gateways' seq fields (+22 % Redis instructions per
    -- key-sync at K = 8); the general path reads the whole hash (readMeta). A hash of text fields
    -- only (written before the record) has no 'c'; one with both is from a fleet of three versions
    -- at once, which decision 0009 rules out.
    local got
    if i > CHECKED then
      got = redis.pcall('HMGET', KEYS[2 * i], 'c', seqField, 'G')
      local h = got.err == nil and redis.pcall('ZCARD', KEYS[2 * i - 1]) or got
      if type(h) == 'table' then
        return redis.error_reply('NONLOCAL ' .. h.err)
      end
      HELD[i] = h
    else
      got = redis.call('HMGET', KEYS[2 * i], 'c', seqField, 'G')
    end
    -- the general path then reads the hash again only for a grant or void (readMeta)
    if got[1] and not got[3] then
      all = got[1]
    end
    q = got[2]
    plain = got[1] or nil
    if got[3] then
      plain = false
    end
  end
  local applied
  if q == PREV_TEXT then
    applied = seq - 1
  elseif q == SEQ_TEXT then
    applied = seq
  else
    applied = tonumber(q)
  end
  if applied and seq < applied then
    return redis.error_reply('STALE_SEQ sync seq ' .. ARGV[8] .. ' is older than ' .. applied .. ', applied already')
  end
  FLAGS[i], ASK[i], RUNS[i], FIRST[i], REPLAY[i], PLAIN[i] = flags, ask, n, at, seq == applied, plain
  if BUCKETS == 0 then
    -- (compact mode: always PARTIAL; its plain path keeps its runs' sums itself, window-buckets.lua)
    ALL[i], ADMITS[i], LO[i], HI[i] = all, admits, lo, hi
  end
  at = at + 16 * n
end

-- The runs of key i that still count at NOW: times and counts (tables), admits pushed, and in exact
-- mode, when all of them (2 to UNPACK_RUNS) do, their bytes.
local function liveRuns(i)
  local times, counts, pushed, whole = {}, {}, 0, true
  local n, pos = RUNS[i], FIRST[i]
  local blob = BLOB_OF ~= nil and BLOB_OF[i] or blob
  local done = 0
  while done < n do
    local k = math.min(UNPACK_RUNS, n - done)
    local v = { unpackDoubles(runFormat(k), blob, pos) }
    pos = v[2 * k + 1]
    for j = 1, 2 * k, 2 do
      local t, c = v[j], v[j + 1]
      if expiry(t) > NOW then
        local x = #times + 1
        times[x] = t
        counts[x] = c
        pushed = pushed + c
        if c <= 0 then
          whole = false
        end
      else
        whole = false
      end
    end
    done = done + k
  end
  -- every run goes in: exact mode's log takes their bytes as sent (window-exact.lua's add)
  local raw = nil
  if whole and BUCKETS == 0 and n > 1 and n <= UNPACK_RUNS then
    raw = string.sub(blob, FIRST[i], FIRST[i] + 16 * n - 1)
  end
  return times, counts, pushed, raw
end

-- SyncReply.pastHorizonAt for a read alone with a count of LIMIT - 2 or more and admits past the pairs
-- just listed (out[p + 1..]): m, the admits listed (nil: not said). Only such keys then pay a read (at
-- the limit or over, the same as belowLimit's): a key further under its limit costs one comparison.
local function pastRank(flags, count, out, p)
  if flags ~= 1 or count + 2 < LIMIT then
    return nil
  end
  local m = 0
  for x = p + 2, #out, 2 do
    m = m + out[x]
  end
  if count > m then
    return m
  end
  return nil
end

-- pastHorizonAt from ranked's two expiries and how many are exact: -inf where its read did not reach.
local function pastExact(e0, e1, exact)
  if exact < 1 then
    e0 = -math.huge
  end
  if exact < 2 then
    e1 = -math.huge
  end
  return e0, e1
end

-- The expiries of the admits at ranks m and m + 1 (the window module's ranked: a bounded read, one
-- Redis call at most), as pastExact.
local function pastHorizon(log, m)
  return pastExact(ranked(log, m))
end

-- SyncReply.belowLimitAt for a read alone whose count is LIMIT or more: the expiries of the admits at
-- ranks count - LIMIT and one after, from the pairs just listed (out[p + 1..]) when they reach that
-- far, else from the log (the window module's ranked: a bounded read, one Redis call at most). Only
-- for such keys: a key under its limit costs one comparison. With `q` (pastRank's), pastHorizonAt's
-- two follow, from the same read when the pairs do not reach.
local function belowLimit(log, count, out, p, q)
  local r = count - LIMIT
  local seen, b0 = 0, nil
  for x = p + 1, #out, 2 do
    seen = seen + out[x + 1]
    if b0 == nil and seen > r then
      b0 = tonumber(out[x])
    end
    if seen > r + 1 then
      if q == nil then
        return b0, tonumber(out[x])
      end
      local f0, f1 = pastHorizon(log, q)
      return b0, tonumber(out[x]), f0, f1
    end
  end
  if q == nil then
    local c0, c1 = ranked(log, r)
    return b0 or c0, c1
  end
  local c0, c1, e0, e1, exact = ranked(log, r, q)
  local f0, f1 = pastExact(e0, e1, exact)
  return b0 or c0, c1, f0, f1
end

-- The plain path: a key holding no grant and no void, asked for none, whose oldest admit still
-- counts (so nothing ages out and the stored count holds), pushing a few runs. It does what the
-- general path below does for such a key, without building its tables or calling through them (a
-- key-sync's Redis time was mostly that Lua work: expiry() is inlined below, as are min and max,
-- each call 300-700 instructions, bench/probes/lua-op-ir.mjs); returns false, having written
-- nothing, where it does not apply. The meta record as readMeta() reads it.
local function plainTouch(i, log, meta, out)
  local k = RUNS[i]
  -- a release (lease designs) is answered with the oldest expiry and the free slots: generalTouch
  if ASK[i] > 0 or FLAGS[i] >= 2 or (BUCKETS == 0 and k > UNPACK_RUNS) then
    return false
  end
  local rec = PLAIN[i]
  if not rec then
    return false
  end
  -- as unrecord(), inline: a NaN (absent) a fails a > 0; o, z fail x == x
  local n, a, o, z, e = unpackRecord('<ddddd', rec)
  if not (a > 0) or o ~= o or z ~= z or (BUCKETS > 0 and n ~= MARK_CLEAR) then
    -- (compact mode: a grant or a void held, or not known: common.lua's settle)
    return false
  end
  -- expiry(o): while it is ahead nothing has aged out
  local oExpiry = FIXED and (math.floor(o / WINDOW) + 1) * WINDOW or o + WINDOW
  if oExpiry <= NOW or (BUCKETS == 0 and (HELD[i] or held(log)) == 0) then
    return false
  end
  if e ~= e then
    e = nil
  end
  local count = a
  if not REPLAY[i] and k > 0 then
    -- compact mode: its runs read by plainRead; the buckets it writes, sent with the record: one
    -- bucket's field and value (f, v), or a table of them (w, of x entries)
    local pushed, n2, lo, hi, f, v, w, x
    if BUCKETS > 0 then
      pushed, n2, lo, hi, f, v, w, x = plainAdd(log, n, i)
    else
      local b = BLOB_OF ~= nil and BLOB_OF[i] or blob
      pushed, n2, lo, hi = plainAdd(log, n, k, b, FIRST[i], string.sub(rec, 1, 8), ADMITS[i], LO[i], HI[i])
    end
    if pushed > 0 then
      count = count + pushed
      if lo < o then
        o = lo
        oExpiry = FIXED and (math.floor(o / WINDOW) + 1) * WINDOW or o + WINDOW
      end
      if hi > z then
        z = hi
      end
      -- as settle(): the records expire MARGIN (up to MARGIN + SLACK) past the newest admit's expiry;
      -- expiryFor() only when e does not cover it
      local want = (FIXED and (math.floor(z / WINDOW) + 1) * WINDOW or z + WINDOW) + MARGIN
      local ttl, expiresAt = nil, e
      if e == nil or e < want - NOW + (REDIS_NOW or redisNow()) then
        ttl, expiresAt = expiryFor(e, want)
      end
      local rec = packRecord('<ddddd', n2, count, o, z, expiresAt)
      if f ~= nil then
        redis.call('HSET', meta, f, v, RECORD, rec, seqField, ARGV[8])
      elseif w == nil then
        redis.call('HSET', meta, RECORD, rec, seqField, ARGV[8])
      else
        w[x + 1], w[x + 2], w[x + 3], w[x + 4] = RECORD, rec, seqField, ARGV[8]
        redis.call('HSET', meta, unpack(w, 1, x + 4))
      end
      if ttl ~= nil then
        if BUCKETS == 0 then
          redis.call('PEXPIRE', log, ttl)
        end
        redis.call('PEXPIRE', meta, ttl)
      end
    end
  end
  local p = #out
  local unloaded = true
  if FLAGS[i] % 2 == 1 and oExpiry < horizon then
    if BUCKETS > 0 then
      -- (compact mode: the module's state reset for this key; see held there)
      held(log)
      unloaded = false
    end
    expiring(log, { o = o }, horizon, out)
  end
  local pairs = (#out - p) / 2
  -- L - 2 or more, some admits not listed: the two oldest of those (pastHorizonAt), last
  local rank = pastRank(FLAGS[i], count, out, p)
  if BUCKETS > 0 and unloaded and (rank ~= nil or (FLAGS[i] == 1 and count >= LIMIT)) then
    held(log)
  end
  if FLAGS[i] == 1 and count >= LIMIT then
    -- at the limit or over: when the count falls below it (belowLimit), after the oldest expiry
    local b0, b1, f0, f1 = belowLimit(log, count, out, p, rank)
    if pairs == 0 then
      HEAD[#HEAD + 1] = packHead('<ddddddd', count, 0, NOW, 0, oExpiry, b0, b1)
    else
      HEAD[#HEAD + 1] = packHead('<dddddd', count, 0, NOW, pairs, b0, b1)
    end
    if rank ~= nil then
      HEAD[#HEAD + 1] = packHead('<dd', f0, f1)
    end
  else
    if FLAGS[i] == 1 and pairs == 0 then
      -- a read that lists no expiry: when the oldest admit counted leaves, from o (see oldestOf)
      HEAD[#HEAD + 1] = packHead('<ddddd', count, 0, NOW, 0, oExpiry)
    else
      HEAD[#HEAD + 1] = packHead('<dddd', count, 0, NOW, pairs)
    end
    if rank ~= nil then
      HEAD[#HEAD + 1] = packHead('<dd', pastHorizon(log, rank))
    end
  end
  return true
end

-- When the oldest admit counted leaves (inf: none), for a read that lists no expiry: from the meta
-- record's o, which prune sets from the log once anything has aged and each add lowers, so no Redis
-- call (reading the log for it, ZRANGE 0 0 or the buckets, cost +33 % / +114 % of a plain key-sync's
-- Redis instructions, bench/probes/sync-redis-ir.mjs). Exact mode: exact (a void, refund or reset
-- reads o again: window-exact.lua's refreshOldest). Compact mode: between the oldest admit's expiry and its
-- bucket's, when the count falls (o bounds the buckets' latest admit times from below).
local function oldestOf(log, m, count)
  if count <= 0 then
    return math.huge
  end
  if m.o ~= nil then
    return expiry(m.o)
  end
  return oldest(log) or math.huge
end

-- The general path: any key, its meta hash `m` as read (release, push, grant, read).
local function generalTouch(i, log, m, out)
  local flags, ask, replay = FLAGS[i], ASK[i], REPLAY[i]
  local tag = 2 * seq
  local others, mine, _, latestLapse = leases(m, gw, flags >= 2 and tag or nil)
  local count, logExisted = prune(log, m)
  m.existed = m.existed or logExisted
  local touched = false
  -- a retry of a sync that landed pushes nothing again; release, ask and read set state, so repeat
  if not replay and RUNS[i] > 0 then
    local times, counts, pushed, raw = liveRuns(i)
    if pushed > 0 then
      add(log, m, times, counts, raw)
      metaSet(m, seqField, ARGV[8])
      count = count + pushed
      touched = true
    end
  end
  -- fresh: slots this call adds to the grant (a retry's answer, its own part, is in `mine`)
  local granted, lapseOut, fresh = 0, NOW, 0
  if ask > 0 then
    local own = partSlots(m, gw, tag)
    if own > 0 then
      -- this sync landed here already: answer with its grant (unless it has lapsed meanwhile)
      local g = m.grants[gw]
      if g.lapse > NOW then
        granted, lapseOut = own, g.lapse
      end
    else
      granted = math.max(0, math.min(ask, LIMIT - count - others - mine))
      fresh = granted
      if granted > 0 then
        lapseOut, latestLapse = addGrant(m, gw, tag, granted, NOW + ttl, latestLapse)
        touched = true
      end
    end
  end
  local p = #out
  if flags % 2 == 1 then
    expiring(log, m, horizon, out)
  end
  if flags >= 2 then
    -- what a lease gateway holding no slot waits for (the contract's SyncReply.oldestExpiry, free)
    local first = count > 0 and oldest(log) or nil
    local free = math.max(0, LIMIT - count - others - mine - fresh)
    HEAD[#HEAD + 1] = packHead('<dddddd', count, granted, lapseOut, (#out - p) / 2, first or math.huge, free)
  elseif flags == 1 and #out == p then
    -- a read that lists no expiry (the shared-counter family's Retry-After, the contract's
    -- SyncReply.oldestExpiry): when the oldest admit counted leaves
    HEAD[#HEAD + 1] = packHead('<ddddd', count, granted, lapseOut, 0, oldestOf(log, m, count))
  else
    HEAD[#HEAD + 1] = packHead('<dddd', count, granted, lapseOut, (#out - p) / 2)
  end
  -- L - 2 or more, some admits not listed: the two oldest of those (pastHorizonAt), last
  local rank = pastRank(flags, count, out, p)
  if flags == 1 and count >= LIMIT then
    -- at the limit or over: when the count falls below it (belowLimit), after the rest; pastHorizonAt
    -- from the same read
    local b0, b1, f0, f1 = belowLimit(log, count, out, p, rank)
    HEAD[#HEAD + 1] = packHead('<dd', b0, b1)
    if rank ~= nil then
      HEAD[#HEAD + 1] = packHead('<dd', f0, f1)
    end
  elseif rank ~= nil then
    HEAD[#HEAD + 1] = packHead('<dd', pastHorizon(log, rank))
  end
  settle(log, m, count, (touched and count > 0) and last(log, m) or nil, latestLapse, touched)
end

local out = { false }
local seen = {}
-- Carried calls run as one (dispatch.lua's merge): the first user key of each carried call, and
-- HEAD's and out's length there, to answer each call apart. `nextCut`: the next call's first key
-- (past NKEYS when not merged: one comparison per key).
local SPLIT = fleetlimitSplit
local cuts, headAt, outAt = nil, nil, nil
local nextCut, c = NKEYS + 1, 0
if SPLIT ~= nil then
  cuts, headAt, outAt = {}, {}, {}
  local from = 1
  for j = 1, #SPLIT do
    cuts[j] = from
    from = from + (KEYS_PAIRED and SPLIT[j] / 2 or SPLIT[j])
  end
  nextCut = 1
end
for i = 1, NKEYS do
  while i == nextCut do
    c = c + 1
    headAt[c], outAt[c] = #HEAD, #out
    nextCut = cuts[c + 1] or NKEYS + 1
  end
  local log, meta
  if KEYS_PAIRED then
    log, meta = KEYS[2 * i - 1], KEYS[2 * i]
  else
    log, meta = KEYS[i], KEYS[i]
  end
  -- read again if an earlier entry named the same key and may have changed it
  local again = seen[meta]
  seen[meta] = true
  if again then
    generalTouch(i, log, readMeta(meta), out)
  elseif not plainTouch(i, log, meta, out) then
    generalTouch(i, log, readMeta(meta, ALL[i] or PARTIAL), out)
  end
end
if SPLIT == nil then
  out[1] = table.concat(HEAD)
  return out
end
-- one reply per carried call, each as if the call had run alone (HEAD[1]: the store's now)
while c < #cuts do
  c = c + 1
  headAt[c], outAt[c] = #HEAD, #out
end
local replies = {}
for j = 1, #cuts do
  local r = { HEAD[1] .. table.concat(HEAD, '', headAt[j] + 1, headAt[j + 1] or #HEAD) }
  for x = outAt[j] + 1, outAt[j + 1] or #out do
    r[#r + 1] = out[x]
  end
  replies[j] = r
end
return replies
