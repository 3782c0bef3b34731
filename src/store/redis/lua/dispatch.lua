-- dispatch.lua: the frame every fleetlimit script is composed in (script.ts, composeScript), so that
-- one call may carry several calls of one script (keys of several slots of one cluster node:
-- send-pipelined.ts). The operation runs as a function: the prelude (common.lua and the window
-- module) runs once per call (one TIME, one set of helpers), the operation once per carried call.
-- A call carrying several has ARGV[1] = MIXED, the count of calls, then per call its key count,
-- argument count, keys and arguments, but for the first call's keys: it declares those (one slot:
-- the client routes by it, Redis checks it), and they are not sent again (a name sent twice cost
-- Redis an argument and a Lua string more). Before running anything it checks that every carried
-- call's keys are served here (EXISTS, which fails on a key of a slot served elsewhere or
-- mid-migration and not here), so it runs whole or not at all (NONLOCAL: the client then sends the
-- calls one by one). An operation that returns an error ends the call with it.
-- An operation composed with merge (sync.lua) runs once for all carried calls instead: they share
-- every argument but the last (one sync's head), their per-key records; the operation sees every
-- carried key in KEYS, `fleetlimitSplit` (each carried call's key count) and `fleetlimitBlobs` (each
-- carried call's last argument; ARGV holds the first call's), and answers each carried call apart
-- (its run per carried call rebuilt the operation's functions and tables, about 100,000 Redis
-- instructions a call). Such an operation checks its carried keys itself, and no EXISTS is made:
-- sync.lua reads every name of every key before it writes anything, and answers NONLOCAL where a
-- read of a carried key is refused (the EXISTS cost ~1,100 instructions a name, so carrying a group
-- of keys cost more than the call's set-up it saved; issue 35).
--
-- Not a script on its own: composeScript drops this comment (down to the first blank line), puts
-- the shebang line first and fills each {{name}}: keysPaired (true, or false for compact mode's sync,
-- whose KEYS name each user key by its meta hash alone), common (common.lua), windowCount
-- (window-count.lua: the count and time bounds both window modules keep in the meta record),
-- window (the window module), op (the operation) and MIXED (script.ts's constant). It was a
-- JavaScript string array in script.ts; the frame made the scripts that array made (same SHA-1s)
-- until window-count.lua took what the two window modules had each written out.

local function fleetlimitScript(KEYS, ARGV, fleetlimitCalls, fleetlimitSplit, fleetlimitBlobs)
local KEYS_PAIRED = {{keysPaired}}
{{common}}
{{windowCount}}
{{window}}
local function fleetlimitOp(KEYS, ARGV)
{{op}}
end
if fleetlimitCalls == nil then
  return fleetlimitOp(KEYS, ARGV)
end
local replies = {}
for j = 1, #fleetlimitCalls do
  local r = fleetlimitOp(fleetlimitCalls[j][1], fleetlimitCalls[j][2])
  if type(r) == 'table' and r.err ~= nil then
    return r
  end
  if r == nil then
    r = false
  end
  replies[j] = r
end
return replies
end
if ARGV[1] ~= '{{MIXED}}' then
  return fleetlimitScript(KEYS, ARGV, nil, nil, nil)
end
local MERGE = {{merge}}
-- merge: the key count of each carried call, their last arguments, the first call's arguments
local calls, all, at, n = {}, {}, 3, #KEYS
local split, lasts, args = {}, {}, nil
for i = 1, n do
  all[i] = KEYS[i]
end
for j = 1, tonumber(ARGV[2]) do
  local nk, na = tonumber(ARGV[at]), tonumber(ARGV[at + 1])
  at = at + 2
  -- the first call's keys: KEYS (above), not in ARGV
  local ka = at
  if j == 1 then
    ka = nil
  else
    if not MERGE and nk > 0 then
      local r = redis.pcall('EXISTS', unpack(ARGV, at, at + nk - 1))
      if type(r) == 'table' and r.err ~= nil then
        return redis.error_reply('NONLOCAL ' .. r.err)
      end
    end
    for i = at, at + nk - 1 do
      n = n + 1
      all[n] = ARGV[i]
    end
    at = at + nk
  end
  if MERGE then
    split[j] = nk
    lasts[j] = ARGV[at + na - 1]
    if j == 1 then
      args = { unpack(ARGV, at, at + na - 1) }
    end
  else
    local keys, a = KEYS, {}
    if ka ~= nil then
      keys = {}
      for i = 1, nk do
        keys[i] = ARGV[ka + i - 1]
      end
    end
    for i = 1, na do
      a[i] = ARGV[at + i - 1]
    end
    calls[j] = { keys, a }
  end
  at = at + na
end
if MERGE then
  return fleetlimitScript(all, args, nil, split, lasts)
end
return fleetlimitScript(all, calls[1][2], calls, nil, nil)
