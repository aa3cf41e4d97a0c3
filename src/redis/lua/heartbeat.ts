import { LuaScript } from '../script.js';
import { ORDER } from './order.js';
import { PRELUDE } from './prelude.js';

/**
 * Keeps a worker's long requests leased: pushes each of its leases still held
 * to `leaseMs` from now — never back: a lease whose send time is still ahead
 * (after a pause, on the schedule) keeps its expiry a lease time after that —
 * and marks the worker live. A lease the fleet already reclaimed (expired) is
 * not brought back.
 *
 * KEYS: state, leases, workers.
 * ARGV: worker id, worker TTL ms, lease ms, then the lease ids.
 * Reply: now ms, live workers.
 */
export const heartbeatScript = new LuaScript(`${PRELUDE}
local ls, wk = KEYS[2], KEYS[3]
redis.call('ZREMRANGEBYSCORE', ls, '-inf', now)
local expiry = int(now + num(ARGV[3]))
for i = 4, #ARGV do redis.call('ZADD', ls, 'XX', 'GT', expiry, ARGV[i]) end
redis.call('PEXPIRE', ls, int(num(ARGV[3]) + 60000))
redis.call('ZREMRANGEBYSCORE', wk, '-inf', now)
redis.call('ZADD', wk, int(now + num(ARGV[2])), ARGV[1])
redis.call('PEXPIRE', wk, ARGV[2])
return {now, redis.call('ZCARD', wk)}
`);

/**
 * Passes on a wake-up this worker no longer needs (it found a slot by
 * itself meanwhile): the next waiting worker is woken if a slot is free.
 *
 * KEYS: state, leases, workers, waiting workers, channel.
 * ARGV: worker id.
 * Reply: now ms.
 */
export const passOnScript = new LuaScript(`${PRELUDE}
redis.call('ZREM', KEYS[4], ARGV[1])
wakeNext(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return now
`);

/**
 * Leases, on rejoining the fleet, the requests this worker admitted alone
 * while Redis was out of reach and that still run: the fleet counts them
 * against its window from now on (none is refused; nothing else is replayed).
 *
 * KEYS: state, leases, admission order (they are numbered there, see `ORDER`).
 * ARGV: lease ms, then the new lease ids.
 * Reply: now ms.
 */
export const adoptScript = new LuaScript(`${PRELUDE}${ORDER}
local expiry = int(now + num(ARGV[1]))
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[2], expiry, ARGV[i])
  leaseOrdered(KEYS[3], ARGV[i])
end
redis.call('PEXPIRE', KEYS[2], int(num(ARGV[1]) + 60000))
redis.call('PEXPIRE', KEYS[3], int(num(ARGV[1]) + 60000))
return now
`);
