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
--
-- Not a script on its own: composeScript drops this comment (down to the first blank line), puts
-- the shebang line first and fills each {{name}}: keysPaired (true, or false for compact mode's sync,
-- whose KEYS name each user key by its meta hash alone), common (common.lua), windowCount
-- (window-count.lua: the count and time bounds both window modules keep in the meta record),
-- window (the window module), op (the operation) and MIXED (script.ts's constant). It was a
-- JavaScript string array in script.ts; the frame made the scripts that array made (same SHA-1s)
-- until window-count.lua took what the two window modules had each written out.

local function fleetlimitScript(KEYS, ARGV, fleetlimitCalls)
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
  return fleetlimitScript(KEYS, ARGV, nil)
end
local calls, all, at = {}, {}, 3
for j = 1, tonumber(ARGV[2]) do
  local nk, na = tonumber(ARGV[at]), tonumber(ARGV[at + 1])
  at = at + 2
  local keys, args = {}, {}
  for i = 1, nk do
    keys[i] = ARGV[at]
    all[#all + 1] = ARGV[at]
    at = at + 1
  end
  for i = 1, na do
    args[i] = ARGV[at]
    at = at + 1
  end
  calls[j] = { keys, args }
  if j > 1 and nk > 0 then
    local r = redis.pcall('EXISTS', unpack(keys))
    if type(r) == 'table' and r.err ~= nil then
      return redis.error_reply('NONLOCAL ' .. r.err)
    end
  end
end
return fleetlimitScript(all, calls[1][2], calls)
