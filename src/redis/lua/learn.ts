import { LuaScript } from '../script.js';
import { PRELUDE } from './prelude.js';

/**
 * The learner's read: checks (or takes, when free and outcomes wait) the
 * learning lock and returns the queued outcomes with the learned state they
 * apply to. The holder keeps the lock while nothing is queued, for the lock
 * time (one worker learns a scope while it is alive and outcomes keep coming,
 * so its algorithms carry on between steps; it stops looking meanwhile and is
 * told when outcomes come: `n<worker>`, see `tellLearner`).
 *
 * Nothing is read for `settle` ms after a cut was queued (`cut`, set by
 * `releaseScript`), whoever asks and why: the other workers send the outcomes
 * they answered before the refusal when they hear of it, and the cut is
 * learned with them (a refusal read ahead of them reads too low a ceiling).
 *
 * KEYS: state, samples, learner lock.
 * ARGV: worker id, lock ms, most outcomes, settle ms.
 * Reply: {0} when another worker holds the lock, or nothing is queued and
 * this worker did not hold it; {2} nothing queued, lock kept; {3, ms} a cut
 * settles for ms more, lock kept (or taken); else {1, now ms, version,
 * learned state or '', outcomes}.
 */
export const learnReadScript = new LuaScript(`${PRELUDE}
local st, smp, ln = KEYS[1], KEYS[2], KEYS[3]
local holder = redis.call('GET', ln)
if holder and holder ~= ARGV[1] then return {0} end
local samples = redis.call('LRANGE', smp, 0, num(ARGV[3]) - 1)
if #samples == 0 then
  if not holder then return {0} end
  redis.call('PEXPIRE', ln, ARGV[2])
  return {2}
end
redis.call('SET', ln, ARGV[1], 'PX', ARGV[2])
local s = redis.call('HMGET', st, 'ver', 'alg', 'cut')
local settled = num(s[3]) + num(ARGV[4])
if settled > now then return {3, int(settled - now)} end
return {1, now, num(s[1]), s[2] or '', samples}
`);

/**
 * The learner's write: stores the state the worker computed from the outcomes
 * it read — only while it still holds the lock and the version is the one it
 * read, so a decision made from stale state is never applied — drops those
 * outcomes, and keeps the lock `hold` ms more (the learner looks again
 * before that; nobody else learns meanwhile, so outcomes are learned in
 * batches). Announces numbers that changed as `s<window> <rate>` (waiters
 * recheck a window that grew; rate-lease holders renew
 * at once when they fell), and a pause it sets as `p<until> <now>`, as a
 * `Retry-After` is: a worker holding a grant timed inside it holds it back.
 *
 * A new rate moves the send times already booked on the shared schedule:
 * past the anchor (now, or the end of a pause), they stretch by old rate ÷
 * new (0 when unpaced now), the schedule's tail here and each worker's
 * bookings when it hears `s<window> <rate> <anchor ms> <factor>` — booked a
 * second ahead, sends still follow a cut or a probe at once.
 *
 * KEYS: state, samples, learner lock, channel.
 * ARGV: worker id, version read, outcomes used, learned state, window, rate,
 * pause-until ms (0 for none), hold ms, state TTL ms.
 * Reply: {0} lock lost, {-1} version moved, else {1, new version, outcomes still queued}.
 */
export const learnApplyScript = new LuaScript(`${PRELUDE}
local st, smp, ln, ch = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
if redis.call('GET', ln) ~= ARGV[1] then return {0} end
local s = redis.call('HMGET', st, 'ver', 'pause', 'win', 'rate', 'tat')
if num(s[1]) ~= num(ARGV[2]) then return {-1} end
local ver = num(s[1]) + 1
redis.call('HSET', st, 'alg', ARGV[4], 'win', ARGV[5], 'rate', ARGV[6], 'ver', int(ver))
if num(ARGV[7]) > num(s[2]) then -- a pause of the algorithm's own (a refusal without Retry-After…)
  redis.call('HSET', st, 'pause', ARGV[7])
  redis.call('SPUBLISH', ch, 'p' .. ARGV[7] .. ' ' .. int(now))
end
redis.call('PEXPIRE', st, ARGV[9])
redis.call('LTRIM', smp, num(ARGV[3]), -1)
redis.call('PEXPIRE', ln, ARGV[8])
local moved = ''
local anchorUs = math.max(nowUs, num(s[2]) * 1000, num(ARGV[7]) * 1000)
if num(s[4]) > 0 and num(s[4]) ~= num(ARGV[6]) and num(s[5]) > anchorUs then
  local factor = 0
  if num(ARGV[6]) > 0 then factor = num(s[4]) / num(ARGV[6]) end
  redis.call('HSET', st, 'tat', int(anchorUs + (num(s[5]) - anchorUs) * factor))
  moved = string.format(' %.3f %.17g', anchorUs / 1000, factor)
end
if num(s[3]) ~= num(ARGV[5]) or num(s[4]) ~= num(ARGV[6]) then
  redis.call('SPUBLISH', ch, 's' .. ARGV[5] .. ' ' .. ARGV[6] .. moved)
end
return {1, ver, redis.call('LLEN', smp)}
`);
