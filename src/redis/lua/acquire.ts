import { LuaScript } from '../script.js';
import { PRELUDE } from './prelude.js';
import { SHARES } from './share.js';

/** What an acquire reply's first element says. */
export const ACQUIRE = { granted: 1, paused: 2, full: 3, paced: 4 } as const;

/**
 * Admission of one request across the fleet, in one round trip: drops expired
 * leases, marks the worker live, then — unless the scope is paused or its
 * window is full — takes a lease (expiring `leaseMs` after the send time) and
 * reserves the next send time on the scope's GCRA schedule, at most
 * `horizonMs` ahead.
 *
 * A worker that finds the window full — or fills it and has more callers
 * waiting — joins the scope's queue of waiting workers; each freed slot
 * wakes the longest-waiting one.
 *
 * Rate leases of other workers (`shareScript`) take their part of the rate
 * off the schedule; their slots, and those they wait for, count against the window.
 *
 * KEYS: state, leases, workers, waiting workers, shares.
 * ARGV: lease id, worker id, lease ms, horizon ms, known version, initial
 * window, initial rate, state TTL ms, scope name, burst, worker TTL ms,
 * more ('1' when more of this worker's callers wait).
 * Reply: code, wait µs, now ms, version, epoch, live workers, in flight (with
 * this lease), window, rate, pause-until ms, learned state (only when the
 * version differs from the known one, else '').
 */
export const acquireScript = new LuaScript(`${PRELUDE}${SHARES}
local st, ls, wk, wq = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local leaseMs, horizonUs = num(ARGV[3]), num(ARGV[4]) * 1000
redis.call('ZREMRANGEBYSCORE', wk, '-inf', now)
redis.call('ZADD', wk, int(now + num(ARGV[11])), ARGV[2])
redis.call('PEXPIRE', wk, ARGV[11])
redis.call('ZREMRANGEBYSCORE', ls, '-inf', now)
if redis.call('EXISTS', st) == 0 then
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
local function reply(code, waitUs, held)
  return {code, waitUs, now, tonumber(ver), num(s[5]), live, held, win, s[2] or '0', pause, alg}
end
if pause > now then return reply(${ACQUIRE.paused}, (pause - now) * 1000, inflight) end
local kept, freeRate = sharesHold(KEYS[5], ARGV[2], win, rate, math.max(1, live))
if inflight + kept >= win then
  redis.call('ZADD', wq, 'NX', int(nowUs), ARGV[2])
  redis.call('PEXPIRE', wq, ARGV[11])
  local first = redis.call('ZRANGE', ls, 0, 0, 'WITHSCORES')
  local expiry = num(first[2])
  return reply(${ACQUIRE.full}, math.max(0, expiry - now) * 1000, inflight)
end
local waitUs = 0
if rate > 0 then
  local interval = 1000000 / freeRate
  local send = math.max(nowUs, tat - (num(ARGV[10]) - 1) * interval)
  waitUs = send - nowUs
  if waitUs > horizonUs then return reply(${ACQUIRE.paced}, waitUs - horizonUs, inflight) end
  redis.call('HSET', st, 'tat', int(math.max(tat, nowUs) + interval))
end
if ARGV[12] == '1' and inflight + 1 >= win then
  redis.call('ZADD', wq, 'NX', int(nowUs), ARGV[2])
  redis.call('PEXPIRE', wq, ARGV[11])
else
  redis.call('ZREM', wq, ARGV[2])
end
redis.call('ZADD', ls, int(now + math.ceil(waitUs / 1000) + leaseMs), ARGV[1])
redis.call('PEXPIRE', ls, int(leaseMs + horizonUs / 1000 + 60000))
return reply(${ACQUIRE.granted}, math.floor(waitUs), inflight + 1)
`);
