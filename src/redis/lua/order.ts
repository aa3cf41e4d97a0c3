/**
 * Lua for the scope's admission order, shared by the scripts that lease and
 * end requests: each lease taken gets the next sequence number (`sq` in the
 * state hash) in the order sorted set (lease id → number); ending it drops it
 * there. The lowest number still leased tells, at any report, whether every
 * request admitted before a given one has been answered anywhere in the fleet
 * — an exact "drained" for the learner (see `FleetDrain`), where the fleet's
 * count of leases is only an upper bound. The last refusal that cut is noted
 * (`rq`), and the outcome that drains it tells the learner at once, as a cut
 * does: the count is read in the refusal's pause, before sending resumes. A
 * lease gone from the leases set (expired: a killed worker's) is dropped from
 * the order when met, so the order needs no cleanup of its own and expires
 * with the leases. KEYS[1] is the state hash; `now`, `int` and `num` come from
 * the prelude.
 */
export const ORDER = `
local function leaseOrdered(ord, id)
  local q = redis.call('HINCRBY', KEYS[1], 'sq', 1)
  redis.call('ZADD', ord, q, id)
  return q
end
local function endOrdered(ord, id)
  local q = redis.call('ZSCORE', ord, id)
  if q then redis.call('ZREM', ord, id) end
  return q
end
-- The lowest number still leased (the next to be given when none is); 0 when too many
-- gone leases lie ahead of it to drop in one call (the learner then reads nothing drained).
local function oldestOrdered(ord, ls)
  for _ = 1, 64 do
    local head = redis.call('ZRANGE', ord, 0, 0, 'WITHSCORES')
    if not head[1] then return num(redis.call('HGET', KEYS[1], 'sq')) + 1 end
    if num(redis.call('ZSCORE', ls, head[1])) > now then return num(head[2]) end
    redis.call('ZREM', ord, head[1])
  end
  return 0
end
-- Notes the number of a refusal that cut (\`rq\`): the learner is told at once when it drains.
local function refusedOrdered(q)
  if q then redis.call('HSET', KEYS[1], 'rq', q) end
end
-- Whether m, the lowest number still leased, shows the noted refusal drained (told once).
local function drainedOrdered(m)
  local rq = redis.call('HGET', KEYS[1], 'rq')
  if not rq or m <= num(rq) then return false end
  redis.call('HDEL', KEYS[1], 'rq')
  return true
end
-- An outcome (JSON) with its request's number (q) and the lowest still leased as it was
-- queued (m); m is left out while a rate lease is held (its requests are not numbered). Also
-- whether it drained the noted refusal (the learner then reads the first count at once).
local function ordered(outcome, q, ord, ls, sh)
  if string.sub(outcome, -1) ~= '}' then return outcome, false end
  local extra, drained = '', false
  if q then extra = ',"q":' .. q end
  if redis.call('EXISTS', sh) == 0 then
    local m = oldestOrdered(ord, ls)
    extra = extra .. ',"m":' .. int(m)
    drained = drainedOrdered(m)
  end
  return string.sub(outcome, 1, -2) .. extra .. '}', drained
end
`;
