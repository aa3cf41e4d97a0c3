import { createClient, createCluster } from '@redis/client';
import { InvalidOptionError } from '../errors.js';
import type { RedisFleetOptions } from './fleet-options.js';
import { ioredisLink, isIoredis } from './ioredis-link.js';
import type { RedisLink } from './link.js';
import {
  isNodeRedisClient,
  isNodeRedisCluster,
  type NodeRedisClientLike,
  nodeRedisLink,
} from './node-redis-link.js';

/** A link and what owning it takes: waiting for the connection, closing it. */
export interface OpenedLink {
  link: RedisLink;
  /** Resolves once connected (at once for a client you passed). */
  ready: Promise<void>;
  /** Closes the link and, when the fleet opened it, the connection. */
  close(): Promise<void>;
}

/** Reconnect quickly (a worker rejoins the fleet soon after Redis is back), never give up. */
const reconnectStrategy = (retries: number) => Math.min(50 * 2 ** retries, 500);

/** Opens the connection the options describe, or wraps the one they give. */
export function openLink(options: RedisFleetOptions, connectTimeoutMs: number): OpenedLink {
  if (options.link !== undefined) return passed(options.link);
  if (options.client !== undefined) return passed(wrapClient(options.client));
  const socket = { connectTimeout: connectTimeoutMs, reconnectStrategy };
  const shared = { disableOfflineQueue: true, socket };
  const redis = options.cluster
    ? createCluster({ rootNodes: [{ url: options.url as string }], defaults: shared })
    : createClient({ url: options.url as string, ...shared });
  redis.on('error', () => undefined); // it reconnects by itself; the fleet reports failed calls
  const link = nodeRedisLink(redis as unknown as NodeRedisClientLike);
  const connecting = redis.connect().then(() => undefined);
  return {
    link,
    ready: connecting,
    close: async () => {
      await link.close();
      connecting.catch(() => undefined); // rejected by destroy() when never connected
      redis.destroy();
    },
  };
}

function passed(link: RedisLink): OpenedLink {
  return { link, ready: Promise.resolve(), close: () => link.close() };
}

function wrapClient(client: unknown): RedisLink {
  if (isIoredis(client)) return ioredisLink(client);
  if (isNodeRedisCluster(client) || isNodeRedisClient(client)) return nodeRedisLink(client);
  throw InvalidOptionError.invalid(
    'redisFleet',
    'client',
    client,
    'a connected node-redis client or cluster, or an ioredis Redis or Cluster',
  );
}
