/**
 * Lua shared by the fleet's scripts: the time from Redis's own clock (never a
 * worker's) and number formatting that keeps every digit (Redis turns a Lua
 * number into a string with 14 significant digits, too few for microseconds).
 */
export const PRELUDE = `
local t = redis.call('TIME')
local nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now = math.floor(nowUs / 1000)
local function int(x) return string.format('%.0f', x) end
local function num(x) return tonumber(x or '0') or 0 end
-- Wakes the longest-waiting live worker, if a slot is free: one wake-up per freed slot.
local function wakeNext(st, ls, wk, wq, ch)
  redis.call('ZREMRANGEBYSCORE', ls, '-inf', now)
  if redis.call('ZCARD', ls) >= num(redis.call('HGET', st, 'win')) then return end
  for _ = 1, 8 do
    local next = redis.call('ZPOPMIN', wq)
    if not next[1] then return end
    if num(redis.call('ZSCORE', wk, next[1])) > now then
      redis.call('SPUBLISH', ch, 'r' .. next[1])
      return
    end
  end
end
`;
