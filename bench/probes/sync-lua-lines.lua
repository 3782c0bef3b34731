-- Lua lines sync.lua runs per key (exact mode), counted with a line hook on a plain lua5.1 (Redis's
-- Lua is 5.1; Redis hides the debug library): where a key-sync's Lua work goes, line by line. Redis's
-- commands are stubbed (a meta hash of n, a, o, z, q:<gw>; ZCARD 36) and struct.unpack reads a table.
-- Usage (apt-get install lua5.1): cd src/store/redis/lua && cat common.lua window-exact.lua sync.lua
--   > /tmp/composed.lua && lua5.1 ../../../../bench/probes/sync-lua-lines.lua /tmp/composed.lua
-- Measured at bf7a9f8: 326 lines per key.
-- stubs
local NKEYS = 100
KEYS = {}
for i = 1, NKEYS do KEYS[2*i-1] = 'fl:{x}l:user:'..i; KEYS[2*i] = 'fl:{x}m:user:'..i end
local now = 1764800000000
ARGV = { tostring(now), '60000', 's', '1000000000', '0', '0', 'gw-1', '7', '3000', '4000' }
local data = {}
for i = 1, NKEYS do
  for _, v in ipairs({1, 0, 3, now-2, 1, now-1, 1, now, 1}) do data[#data+1] = v end
end
ARGV[11] = data
struct = { unpack = function(fmt, s, pos)
  local k = #fmt - 1
  local i = (pos - 1) / 8 + 1
  local out = {}
  for j = 0, k - 1 do out[#out+1] = s[i + j] end
  out[#out+1] = pos + 8 * k
  return unpack(out)
end }
local meta = { 'n', '12', 'a', '36', 'o', tostring(now - 20000), 'z', tostring(now - 1000), 'q:gw-1', '6' }
redis = { call = function(cmd, ...)
  if cmd == 'HGETALL' then local r = {} for i=1,#meta do r[i]=meta[i] end return r end
  if cmd == 'ZCARD' then return 36 end
  if cmd == 'TIME' then return { tostring(math.floor(now/1000)), '0' } end
  return 0
end, error_reply = function(x) return { err = x } end }
local counts = {}
local f = assert(loadfile(arg[1]))
debug.sethook(function(ev, line) counts[line] = (counts[line] or 0) + 1 end, 'l')
local out = f()
debug.sethook()
local lines = {}
for l in io.lines(arg[1]) do lines[#lines+1] = l end
local arr = {}
local total = 0
for l, c in pairs(counts) do arr[#arr+1] = {l, c}; total = total + c end
table.sort(arr, function(a, b) return a[2] > b[2] end)
print('lines executed per key:', total / NKEYS)
for i = 1, 45 do local a = arr[i]; if a then print(string.format('%6.1f  %4d  %s', a[2]/NKEYS, a[1], lines[a[1]])) end end
