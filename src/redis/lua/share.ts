import { LuaScript } from '../script.js';
import { PRELUDE } from './prelude.js';

/**
 * Lua shared by the scripts that know of rate leases: the live shares of a
 * scope (expired ones dropped) and the rate left for per-request admission.
 * A share is stored as `rate slots expiry wantedRate wantedSlots`; its slots
 * are also members `<worker>#s<i>` of the leases set, so the window counts
 * them like any lease (and they expire with the share).
 */
export const SHARES = `
local function liveShares(sh)
  local flat = redis.call('HGETALL', sh)
  local shares = {}
  for i = 1, #flat, 2 do
    local f = {}
    for x in string.gmatch(flat[i + 1], '%S+') do f[#f + 1] = tonumber(x) or 0 end
    if (f[3] or 0) > now then
      shares[#shares + 1] = {w = flat[i], r = f[1], s = f[2], e = f[3], wr = f[4] or 0, ws = f[5] or 0}
    else
      redis.call('HDEL', sh, flat[i])
    end
  end
  return shares
end
-- What the shares of workers other than me keep from per-request admission: the
-- slots they wanted and were not granted yet, up to an equal part of the window
-- (their slots granted are leases already), and their rates, at least their
-- wanted rate up to an equal part (per-request admission runs on what is left;
-- the shares' portion leaves it the parts of the live workers without one).
local function sharesHold(sh, me, win, rate, live)
  if redis.call('EXISTS', sh) == 0 then return 0, rate end
  local slots, held = 0, 0
  for _, s in ipairs(liveShares(sh)) do
    if s.w ~= me then
      slots = slots + math.max(0, math.min(s.ws, math.floor(win / live)) - s.s)
      if rate > 0 then held = held + math.max(s.r, math.min(s.wr, rate / live)) end
    end
  end
  if rate <= 0 then return slots, rate end
  return slots, math.max(rate - held, rate / 1000)
end
-- Until when another worker's share paces a paced scope (its leased rate), or nil: a share there
-- is held only by a worker alone on the scope, so it is given up when another asks (see shareScript).
local function pacedBy(sh, me)
  if redis.call('EXISTS', sh) == 0 then return nil end
  local untilMs
  for _, s in ipairs(liveShares(sh)) do
    if s.w ~= me and s.r > 0 then untilMs = math.min(untilMs or math.huge, s.e) end
  end
  return untilMs
end
`;

/**
 * A rate lease (Doorman's idea): a worker that sends many requests on a scope
 * takes a share of the scope's window and rate until `leaseMs` from now and
 * spends it locally, so its requests pay no round trip each; it renews the
 * share about three times per lease, bringing the outcomes it gathered
 * meanwhile for the learner. Shares are cut by water-filling — every
 * holder gets what it wants up to an equal part of the holders' portion
 * (window and rate × holders ÷ live workers, so workers admitted per request
 * keep their parts) — and never exceed what the other holders and the
 * per-request leases leave now: the fleet never holds more than its window
 * and rate, and a holder above its part comes down at its next renewal.
 * A want not granted yet is kept with the share (until it expires): per-request
 * admission leaves it room, so a window full of per-request leases makes
 * way within a renewal period. Wanting nothing (0 slots) drops the share.
 *
 * A share that shrank wakes the longest-waiting worker if a slot is free.
 *
 * On a paced scope a share is taken only by a worker alone there (one live
 * worker): its controller paces the share with its own timer, so beside
 * the shared schedule, or another share, the sends of two pacers land out
 * of phase — closer together than the rate, where a fixed window counts one
 * too many. A worker asking per request there tells the holder to renew at
 * once (`y` on the channel; see `acquireScript`), which gives the share up
 * and continues the schedule one interval on; its slots wake that worker.
 * A want refused so is not kept. Unpaced scopes (a window only) share
 * among any number of workers.
 *
 * KEYS: state, leases, workers, shares, samples, learner lock, waiting
 * workers, channel.
 * ARGV: worker id, lease ms, wanted slots, wanted rate (req/s), slots held
 * now, worker TTL ms, state TTL ms, most outcomes kept, lock ms, known
 * version, this worker's per-request leases held, its requests running under
 * the share now, then the outcomes gathered (JSON each). A share cut below
 * the requests running under it keeps their slots held until the next renewal.
 * Reply: as `acquireScript`'s (code 1, wait 0, now, version, epoch, live
 * workers, leases held fleet-wide, window, rate, pause-until, learned state
 * or ''), then slots granted, rate granted ('0' for unpaced), learn (1: this
 * worker now holds the learning lock).
 */
export const shareScript = new LuaScript(`${PRELUDE}${SHARES}
local st, ls, wk, sh, smp, ln = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local wq, ch = KEYS[7], KEYS[8]
local me, leaseMs, wantS, wantR = ARGV[1], num(ARGV[2]), num(ARGV[3]), num(ARGV[4])
redis.call('ZREMRANGEBYSCORE', wk, '-inf', now)
redis.call('ZADD', wk, int(now + num(ARGV[6])), me)
redis.call('PEXPIRE', wk, ARGV[6])
for i = 1, num(ARGV[5]) do redis.call('ZREM', ls, me .. '#s' .. i) end
redis.call('HDEL', sh, me)
redis.call('ZREMRANGEBYSCORE', ls, '-inf', now)
local learn = 0
if #ARGV > 12 then
  for i = 13, #ARGV do redis.call('RPUSH', smp, ARGV[i]) end
  redis.call('LTRIM', smp, -num(ARGV[8]), -1)
  redis.call('PEXPIRE', smp, ARGV[7])
  learn = tellLearner(smp, ln, KEYS[8], me, ARGV[9], #ARGV - 12, false)
end
local s = redis.call('HMGET', st, 'win', 'rate', 'pause', 'ep', 'ver', 'alg')
local win, rate = num(s[1]), num(s[2])
local ver = s[5] or '0'
local alg = ''
if ver ~= ARGV[10] then alg = s[6] or '' end
local live = math.max(1, redis.call('ZCARD', wk))
local others = liveShares(sh)
local grantS, grantR = 0, 0
if rate > 0 and live > 1 then
  if num(ARGV[5]) > 0 then -- the share paced the scope until now: the schedule goes on from it
    local tat = math.max(num(redis.call('HGET', st, 'tat')), nowUs + 1000000 / rate)
    redis.call('HSET', st, 'tat', int(tat))
  end
  wantS, wantR = 0, 0
end
if wantS > 0 and win > 0 then
  others[#others + 1] = {w = me, r = 0, s = 0, wr = wantR, ws = wantS}
  local portion = #others / math.max(live, #others)
  -- Water-filling: smallest wants first, each up to an equal part of what is left.
  local function fill(cap, field, whole)
    local order = {}
    for i = 1, #others do order[i] = others[i] end
    table.sort(order, function(a, b) return a[field] < b[field] end)
    local left = cap
    for k, o in ipairs(order) do
      local part = left / (#order - k + 1)
      if whole then part = math.ceil(part) end
      local g = math.min(o[field], part)
      left = left - g
      if o.w == me then return g end
    end
    return 0
  end
  local heldR = 0
  for i = 1, #others - 1 do heldR = heldR + others[i].r end
  -- My own per-request leases do not count: my share will hold their requests too.
  local taken = redis.call('ZCARD', ls) - num(ARGV[11])
  grantS = math.max(0, math.min(fill(math.floor(win * portion), 'ws', true), win - taken))
  if rate > 0 then
    grantR = math.max(0, math.min(fill(rate * portion, 'wr', false), rate - heldR))
    if grantR <= 0 then grantS = 0 end
  end
end
-- Slots still in use under the old share stay held until their requests end.
local members = math.max(grantS, math.min(num(ARGV[12]), num(ARGV[5])))
if members > 0 or wantS > 0 then
  local expiry = int(now + leaseMs)
  for i = 1, members do redis.call('ZADD', ls, expiry, me .. '#s' .. i) end
  redis.call('PEXPIRE', ls, int(leaseMs + 60000))
  redis.call('HSET', sh, me, string.format('%.17g %d %s %.17g %d', grantR, grantS, expiry, wantR, wantS))
  redis.call('PEXPIRE', sh, int(leaseMs + 60000))
end
if grantS < num(ARGV[5]) then wakeNext(st, ls, wk, wq, ch) end
return {1, 0, now, tonumber(ver), num(s[4]), live, redis.call('ZCARD', ls), win, s[2] or '0',
  num(s[3]), alg, grantS, string.format('%.17g', grantR), learn}
`);
