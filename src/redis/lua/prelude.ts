/**
 * Lua shared by the fleet's scripts: the scope's clock and number formatting
 * that keeps every digit (Redis turns a Lua number into a string with 14
 * significant digits, too few for microseconds).
 *
 * The scope's clock is Redis's own (`TIME`, never a worker's), made never to
 * go back: send times, pauses and lease expiries are kept in it, so a Redis
 * wall clock set back an hour would otherwise hold every worker an hour. The
 * state hash keeps the last reading (`clk`, µs) and the shift (`clkoff`, µs)
 * that continues from it after a step back. KEYS[1] is always the state hash.
 */
export const PRELUDE = `
local function int(x) return string.format('%.0f', x) end
local function num(x) return tonumber(x or '0') or 0 end
local t = redis.call('TIME')
local nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])
do
  local c = redis.call('HMGET', KEYS[1], 'clk', 'clkoff')
  local offUs = num(c[2])
  if nowUs + offUs < num(c[1]) then offUs = num(c[1]) - nowUs end
  nowUs = nowUs + offUs
  if c[1] or redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('HSET', KEYS[1], 'clk', int(nowUs), 'clkoff', int(offUs))
  end
end
local now = math.floor(nowUs / 1000)
-- Wakes the longest-waiting live worker, if a slot is free: one wake-up per freed slot. The woken
-- worker stays queued, marked (its score: minus when it was woken, µs), until it asks (or 1 s
-- passes): meanwhile the others still keep to their fair part of the window.
local function wakeNext(st, ls, wk, wq, ch)
  redis.call('ZREMRANGEBYSCORE', ls, '-inf', now)
  if redis.call('ZCARD', ls) >= num(redis.call('HGET', st, 'win')) then return end
  for _ = 1, 8 do
    local next = redis.call('ZRANGEBYSCORE', wq, 0, '+inf', 'LIMIT', 0, 1)[1]
    if not next then return end
    if num(redis.call('ZSCORE', wk, next)) > now then
      redis.call('ZADD', wq, int(-nowUs), next)
      redis.call('SPUBLISH', ch, 'r' .. next)
      return
    end
    redis.call('ZREM', wq, next)
  end
end
-- Outcomes were just queued (pushed of them): this worker takes the learning lock if it is free
-- (returns 1, else 0). A cut is announced at once ('l' .. the holder, this worker too when it
-- took the lock): every worker sends the outcomes it gathered, for the cut to be learned with
-- them. Otherwise the holder is told, when these are the first outcomes since its last look (it
-- looks only while outcomes come), to look again ('n' .. holder).
local function tellLearner(smp, ln, ch, me, lockMs, pushed, urgent)
  local took = redis.call('SET', ln, me, 'NX', 'PX', lockMs)
  if urgent then
    redis.call('SPUBLISH', ch, 'l' .. redis.call('GET', ln))
  elseif not took and redis.call('LLEN', smp) <= pushed then
    redis.call('SPUBLISH', ch, 'n' .. redis.call('GET', ln))
  end
  if took then return 1 end
  return 0
end
`;
