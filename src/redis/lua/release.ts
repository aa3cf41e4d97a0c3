import { LuaScript } from '../script.js';
import { ORDER } from './order.js';
import { PRELUDE } from './prelude.js';

/**
 * A request's end, in one round trip: frees its lease (waking the
 * longest-waiting worker), applies a `Retry-After` as a fleet-wide pause (and
 * announces it) counted from when the response arrived — not from when this
 * script runs, a round trip or a busy worker's backlog later — and queues the
 * outcome for the learner, whose rate algorithm derives the same pause from it
 * (rounded up alike, from the same arrival: one the worker dated ahead of
 * Redis's clock is dated now in both), so the learner never moves the pause
 * end that leases were already scheduled from. A congestion signal
 * claims the scope's current epoch: only the first one admitted under it
 * counts — it bumps the epoch, notes when if other workers are live (`cut`:
 * the learner reads nothing until their outcomes answered before it came, see
 * `learnReadScript`) and has the scope learned (this worker takes the
 * learning lock if free; either way `l<holder>` tells every worker, which
 * sends what it gathered for the cut) —
 * and later ones admitted under an old epoch are dropped, so one congestion
 * event makes one cut fleet-wide. Outcomes the worker answered before this
 * one and had not sent yet (gathered under a rate lease) come with it and are
 * queued ahead of it: the learner measures what the server granted before a
 * refusal from all of them, not from what a renewal happened to bring.
 *
 * KEYS: state, leases, samples, learner lock, channel, workers, waiting workers, admission
 * order, shares (the outcome queued carries its request's number and the lowest still leased,
 * see `ORDER`).
 * ARGV: lease id ('' when none), worker id, Retry-After ms (0 for none),
 * congestion (1 or 0), admitted epoch, outcome ('' for none), most outcomes
 * kept, lock ms, state TTL ms, when the response arrived (Redis ms, as the
 * worker estimates it; 0: now — never later than now), then the outcomes
 * answered before it (JSON each).
 * Reply: now ms, learn (1: this worker now holds the learning lock), cut (1:
 * this outcome claimed the epoch), epoch after.
 */
export const releaseScript = new LuaScript(`${PRELUDE}${ORDER}
local st, ls, smp, ln, ch, wk, wq = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local ord, sh = KEYS[8], KEYS[9]
local removed, q = 0, nil
if ARGV[1] ~= '' then
  q = endOrdered(ord, ARGV[1])
  removed = redis.call('ZREM', ls, ARGV[1])
end
local s = redis.call('HMGET', st, 'pause', 'ep')
local pause, ep = num(s[1]), num(s[2])
local retryAfter = num(ARGV[3])
local from, outcome = num(ARGV[10]), ARGV[6]
if from <= 0 or from > now then -- unknown, or an estimate ahead of Redis's clock: now, for the learner too
  from = now
  outcome = string.gsub(outcome, '"a":[^,}]*', '"a":' .. int(now), 1)
end
-- Rounded up as the learner rounds the same pause (its rate algorithm hears the same Retry-After).
if retryAfter > 0 and math.ceil(from + retryAfter) > pause then
  pause = math.ceil(from + retryAfter)
  redis.call('HSET', st, 'pause', int(pause))
  redis.call('SPUBLISH', ch, 'p' .. int(pause) .. ' ' .. int(now))
end
local earlier = #ARGV - 10
for i = 11, #ARGV do redis.call('RPUSH', smp, ARGV[i]) end
local keep = outcome ~= ''
local cut = 0
if ARGV[4] == '1' then
  if num(ARGV[5]) == ep then
    ep = ep + 1
    redis.call('HSET', st, 'ep', int(ep))
    -- Alone, nobody else has outcomes to bring: the cut is learned at once.
    if redis.call('ZCOUNT', wk, '(' .. int(now), '+inf') > 1 then redis.call('HSET', st, 'cut', int(now)) end
    refusedOrdered(q)
    cut = 1
  else
    keep = false
  end
end
local learn, drained = 0, false
if keep then
  local text
  text, drained = ordered(outcome, q, ord, ls, sh)
  redis.call('RPUSH', smp, text)
end
if keep or earlier > 0 then
  redis.call('LTRIM', smp, -num(ARGV[7]), -1)
  redis.call('PEXPIRE', smp, ARGV[9])
  local pushed = earlier
  if keep then pushed = pushed + 1 end
  learn = tellLearner(smp, ln, ch, ARGV[2], ARGV[8], pushed, cut == 1 or drained)
end
if removed == 1 then wakeNext(st, ls, wk, wq, ch) end
return {now, learn, cut, ep}
`);
