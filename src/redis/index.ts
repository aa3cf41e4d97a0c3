/**
 * `ratewise/redis`: fleet mode. Many processes on many machines share one
 * controller per rate-limit scope through Redis — one window, one schedule,
 * one pause, one congestion epoch and one learned state per scope.
 *
 * @packageDocumentation
 */
export { RedisTimeoutError, RedisUnreachableError } from '../errors.js';
export { connectFleet, isCluster } from './connect.js';
export type { FleetSettings, RedisFleetOptions } from './fleet-options.js';
export { FleetRegistry } from './fleet-registry.js';
export { type IoredisLike, ioredisLink } from './ioredis-link.js';
export { type ScopeKeys, scopeId, scopeKeys } from './keys.js';
export type { MessageListener, RedisLink } from './link.js';
export {
  type NodeRedisClientLike,
  type NodeRedisClusterLike,
  nodeRedisLink,
} from './node-redis-link.js';
export { type FleetMode, type ModeListener, RedisFleet, redisFleet } from './redis-fleet.js';
export {
  type RedisClusterProcess,
  type RedisProcess,
  type RedisProcessOptions,
  startRedisCluster,
  startRedisServer,
} from './redis-process.js';
export type { LuaScript } from './script.js';
export { readFleetStatus, type ScopeStatus } from './status.js';
