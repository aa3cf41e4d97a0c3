import { LuaScript } from '../script.js';
import { ORDER } from './order.js';
import { PRELUDE } from './prelude.js';
import { SHARES } from './share.js';

/** What an acquire reply's first element says. */
export const ACQUIRE = { granted: 1, paused: 2, full: 3, paced: 4 } as const;

/**
 * What an acquire reply says of the learning lock: this worker took it, and
 * learns `now` (a refusal's first count is due) or `soon` — after its batch
 * time, so the outcomes of the scope's other requests answered meanwhile are
 * learned in the same step, not in one read and write each.
 */
export const LEARN = { now: 1, soon: 2 } as const;

/**
 * Admission of a worker's waiting requests across the fleet, in one round
 * trip. First it ends this worker's requests that finished without news for
 * the whole fleet (their leases freed, their outcomes queued for the learner,
 * the learning lock taken if free, else its holder told when it stopped
 * looking), so a worker that keeps sending pays one
 * round trip per request, not two. Then it drops expired leases, marks the
 * worker live, and — unless the scope is paused or its window is full —
 * takes up to `count` leases (each expiring `leaseMs` after its send time),
 * each with the next send time on the scope's GCRA schedule, at most
 * `horizonMs` ahead. A pause that ends within `horizonMs` starts the
 * schedule at its end: the fleet sends again as the pause ends, not a round
 * trip later. Unpaced, only one lease is booked for that end, fleet-wide: the
 * others ask again as it ends, by when the learner may have set a rate (booked
 * unpaced, every lease got the pause's end, and a rate set meanwhile moved none
 * of them: a cold start's fleet resumed with a burst that a window refused).
 * `count` 0 only ends requests.
 *
 * A worker that finds the window full — or fills it and has more callers
 * waiting — joins the scope's queue of waiting workers; a freed slot wakes
 * the longest-waiting one. While others wait there, a worker takes no more
 * than its fair part of the window (window ÷ live workers, less the leases
 * it holds): a busy worker ending and re-leasing in one call would
 * otherwise keep every slot it ever had.
 *
 * Rate leases of other workers (`shareScript`) take their part of the rate
 * off the schedule; their slots, and those they wait for, count against the
 * window. On a paced scope another worker's share (taken while it was alone
 * there) is asked to be given up (`y` on the channel) and this worker waits,
 * queued, for the slot that frees (code full).
 *
 * KEYS: state, leases, workers, waiting workers, shares, samples, learner lock, channel,
 * admission order (see `ORDER`: each lease granted is numbered there; each outcome queued
 * carries its request's number and the lowest still leased).
 * ARGV: lease id prefix, worker id, lease ms, horizon ms, known version,
 * initial window, initial rate, state TTL ms, scope name, burst, worker TTL
 * ms, more ('1' when more of this worker's callers wait than `count`),
 * count, first lease number (lease i is `<prefix><first + i - 1>`), ended
 * requests n, most outcomes kept, lock ms, leases this worker holds on the
 * scope (besides those it ends here), then n lease ids and n outcomes ('' for
 * none).
 * Reply: code, wait µs (of the first lease, or until worth asking again: a
 * pause, until it ends within the horizon), now
 * ms, version, epoch, live workers, in flight (with the new leases), window,
 * rate, pause-until ms, learned state (only when the version differs from the
 * known one, else ''), the wait µs of each lease granted, learn (0, or this
 * worker now holds the learning lock: see {@link LEARN}), µs until the first
 * lease expires (a slot freed by expiry wakes nobody: a worker of a full
 * window asks again then).
 */
export const acquireScript = new LuaScript(`${PRELUDE}${ORDER}${SHARES}
local st, ls, wk, wq = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local smp, ln, ord = KEYS[6], KEYS[7], KEYS[9]
local leaseMs, horizonUs = num(ARGV[3]), num(ARGV[4]) * 1000
local count, first, ended = num(ARGV[13]), num(ARGV[14]), num(ARGV[15])
local freed, learn, pushed, drained = 0, 0, 0, false
for i = 1, ended do
  local q = endOrdered(ord, ARGV[18 + i])
  freed = freed + redis.call('ZREM', ls, ARGV[18 + i])
  local outcome = ARGV[18 + ended + i]
  if outcome ~= '' then
    local text, drains = ordered(outcome, q, ord, ls, KEYS[5])
    drained = drained or drains
    redis.call('RPUSH', smp, text)
    pushed = pushed + 1
  end
end
if pushed > 0 then
  redis.call('LTRIM', smp, -num(ARGV[16]), -1)
  redis.call('PEXPIRE', smp, ARGV[8])
  learn = tellLearner(smp, ln, KEYS[8], ARGV[2], ARGV[17], pushed, drained)
  if learn == 1 and not drained then learn = ${LEARN.soon} end
end
redis.call('ZREMRANGEBYSCORE', wk, '-inf', now)
redis.call('ZADD', wk, int(now + num(ARGV[11])), ARGV[2])
redis.call('PEXPIRE', wk, ARGV[11])
redis.call('ZREMRANGEBYSCORE', ls, '-inf', now)
if not redis.call('HGET', st, 'win') then
  redis.call('HSET', st, 'win', ARGV[6], 'rate', ARGV[7], 'ep', '0', 'ver', '0', 'scope', ARGV[9])
end
redis.call('PEXPIRE', st, ARGV[8])
local s = redis.call('HMGET', st, 'win', 'rate', 'tat', 'pause', 'ep', 'ver', 'alg')
local win, rate, tat, pause = num(s[1]), num(s[2]), num(s[3]), num(s[4])
local ver = s[6] or '0'
local alg = ''
if ver ~= ARGV[5] then alg = s[7] or '' end
local live = redis.call('ZCARD', wk)
local inflight = redis.call('ZCARD', ls)
local waits = {}
local passed = false
local function reply(code, waitUs)
  if freed > 0 or passed then wakeNext(st, ls, wk, wq, KEYS[8]) end
  local expiry = num(redis.call('ZRANGE', ls, 0, 0, 'WITHSCORES')[2])
  return {code, waitUs, now, tonumber(ver), num(s[5]), live, inflight, win, s[2] or '0', pause,
    alg, waits, learn, math.max(0, expiry - now) * 1000}
end
if count == 0 then return reply(${ACQUIRE.granted}, 0) end
-- Woken workers that never asked (1 s on) are dropped; this one, woken, is asking now.
redis.call('ZREMRANGEBYSCORE', wq, '(' .. int(1000000 - nowUs), '(0')
if num(redis.call('ZSCORE', wq, ARGV[2])) < 0 then redis.call('ZREM', wq, ARGV[2]) end
if (pause - now) * 1000 > horizonUs then
  return reply(${ACQUIRE.paused}, (pause - now) * 1000 - horizonUs)
end
local startUs = math.max(nowUs, pause * 1000)
-- Unpaced, a pause's end is booked once: every lease would get it, and the first rate the learner
-- reads meanwhile moves no booking (a burst as the fleet resumed, refused by the window it opened).
-- Paced since, the schedule starts after that booking, not on it.
if pause > now then
  local booked = redis.call('ZCOUNT', ls, int(pause + leaseMs - 1), '+inf')
  if rate == 0 then
    if booked > 0 then return reply(${ACQUIRE.paused}, (pause - now) * 1000) end
    count = math.min(count, 1)
  elseif booked > 0 and tat < startUs then
    tat = startUs + booked * 1000000 / rate
  end
end
local kept, freeRate = sharesHold(KEYS[5], ARGV[2], win, rate, math.max(1, live))
local function queue()
  redis.call('ZADD', wq, 'NX', int(nowUs), ARGV[2])
  redis.call('PEXPIRE', wq, ARGV[11])
end
-- A worker that was alone here paces the scope with its share: told to give it up now, it
-- wakes this one with the slots it frees (or the share runs out).
local pacedUntil = rate > 0 and pacedBy(KEYS[5], ARGV[2])
if pacedUntil then
  redis.call('SPUBLISH', KEYS[8], 'y')
  queue()
  return reply(${ACQUIRE.full}, math.max(0, pacedUntil - now) * 1000)
end
-- Other workers waiting that called within a lease time (a waiting worker asks again at least
-- that often; a dead one's place in the queue caps nobody longer): this one's part.
local fair, othersLiveUntil = count, math.huge
for _, other in ipairs(redis.call('ZRANGE', wq, 0, -1)) do
  local alive = num(redis.call('ZSCORE', wk, other)) - num(ARGV[11]) + leaseMs
  if other ~= ARGV[2] and alive > now then
    fair = math.ceil(win / math.max(1, live)) - num(ARGV[18])
    othersLiveUntil = math.min(othersLiveUntil, alive)
  end
end
local code, waitUs = ${ACQUIRE.granted}, 0
for i = 1, count do
  if inflight + kept >= win or i > fair then
    queue()
    if i > fair then -- its part taken: it waits behind the others, and a slot left goes to them
      redis.call('ZADD', wq, int(nowUs), ARGV[2])
      passed = inflight + kept < win
    end
    if i == 1 then
      local expiry = num(redis.call('ZRANGE', ls, 0, 0, 'WITHSCORES')[2])
      -- Held to its part: ask again when the waiting workers may have gone, at the latest.
      if i > fair then expiry = math.min(expiry, othersLiveUntil) end
      code, waitUs = ${ACQUIRE.full}, math.max(0, expiry - now) * 1000
    end
    break
  end
  local wait = startUs - nowUs
  if rate > 0 then
    local interval = 1000000 / freeRate
    local send = math.max(startUs, tat - (num(ARGV[10]) - 1) * interval)
    wait = send - nowUs
    if wait > horizonUs then
      if i == 1 then code, waitUs = ${ACQUIRE.paced}, wait - horizonUs end
      break
    end
    tat = math.max(tat, startUs) + interval
    redis.call('HSET', st, 'tat', int(tat))
  end
  inflight = inflight + 1
  redis.call('ZADD', ls, int(now + math.ceil(wait / 1000) + leaseMs), ARGV[1] .. (first + i - 1))
  leaseOrdered(ord, ARGV[1] .. (first + i - 1))
  waits[i] = math.floor(wait)
  if i == 1 then waitUs = waits[1] end
end
if #waits > 0 then
  redis.call('PEXPIRE', ls, int(leaseMs + horizonUs / 1000 + 60000))
  redis.call('PEXPIRE', ord, int(leaseMs + horizonUs / 1000 + 60000))
  if ARGV[12] == '1' and inflight >= win then queue()
  elseif #waits == count then redis.call('ZREM', wq, ARGV[2]) end
end
return reply(code, waitUs)
`);
