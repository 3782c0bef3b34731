-- dispatch.lua: the frame every fleetlimit script is composed in (script.ts, composeScript), so that
-- one call may carry several calls of one script (keys of several slots of one cluster node:
-- send-pipelined.ts). The operation runs as a function: the prelude (common.lua and the window
-- module) runs once per call (one TIME, one set of helpers), the operation once per carried call.
-- A call carrying several has ARGV[1] = MIXED, the count of calls, then per call its key count,
-- argument count, keys and arguments; it declares the keys of its first carried call (one slot: the
-- client routes by it, Redis checks it). Before running anything it checks that every carried call's
-- keys are served here (EXISTS, which fails on a key of a slot served elsewhere or mid-migration and
-- not here), so it runs whole or not at all (NONLOCAL: the client then sends the calls one by one).
-- An operation that returns an error ends the call with it.
-- An operation composed with merge (sync.lua) runs once for all carried calls instead: they share
-- every argument but the last (one sync's head), whose per-key records are joined in call order; the
-- operation sees every carried key in KEYS and `fleetlimitSplit` (each carried call's key count) and
-- answers each carried call apart (its run per carried call rebuilt the operation's functions and
-- tables, about 100,000 Redis instructions a call: at 2,000 keys a third of a cluster sync).
--
-- Not a script on its own: composeScript drops this comment (down to the first blank line), puts
-- the shebang line first and fills each {{name}}: keysPaired (true, or false for compact mode's sync,
-- whose KEYS name each user key by its meta hash alone), common (common.lua), windowCount
-- (window-count.lua: the count and time bounds both window modules keep in the meta record),
-- window (the window module), op (the operation) and MIXED (script.ts's constant). It was a
-- JavaScript string array in script.ts; the frame made the scripts that array made (same SHA-1s)
-- until window-count.lua took what the two window modules had each written out.

local function fleetlimitScript(KEYS, ARGV, fleetlimitCalls, fleetlimitSplit)
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
  return fleetlimitScript(KEYS, ARGV, nil, nil)
end
local MERGE = {{merge}}
-- merge: the key count of each carried call, their last arguments, the first call's arguments
local calls, all, at, n = {}, {}, 3, 0
local split, lasts, args = {}, {}, nil
for j = 1, tonumber(ARGV[2]) do
  local nk, na = tonumber(ARGV[at]), tonumber(ARGV[at + 1])
  at = at + 2
  if j > 1 and nk > 0 then
    local r = redis.pcall('EXISTS', unpack(ARGV, at, at + nk - 1))
    if type(r) == 'table' and r.err ~= nil then
      return redis.error_reply('NONLOCAL ' .. r.err)
    end
  end
  for i = at, at + nk - 1 do
    n = n + 1
    all[n] = ARGV[i]
  end
  if MERGE then
    split[j] = nk
    lasts[j] = ARGV[at + nk + na - 1]
    if j == 1 then
      args = { unpack(ARGV, at + nk, at + nk + na - 1) }
    end
  else
    local keys, a = {}, {}
    for i = 1, nk do
      keys[i] = ARGV[at + i - 1]
    end
    for i = 1, na do
      a[i] = ARGV[at + nk + i - 1]
    end
    calls[j] = { keys, a }
  end
  at = at + nk + na
end
if MERGE then
  args[#args] = table.concat(lasts)
  return fleetlimitScript(all, args, nil, split)
end
return fleetlimitScript(all, calls[1][2], calls, nil)
