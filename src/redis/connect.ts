import { createClient } from '@redis/client';
import { RedisUnreachableError } from '../errors.js';
import type { RedisFleetOptions } from './fleet-options.js';
import { RedisFleet } from './redis-fleet.js';

/**
 * Whether the Redis at `url` is a Redis Cluster node (`INFO cluster`). Rejects
 * with {@link RedisUnreachableError} when it does not answer within `timeoutMs`.
 */
export async function isCluster(url: string, timeoutMs = 5000): Promise<boolean> {
  const client = createClient({
    url,
    socket: { connectTimeout: timeoutMs, reconnectStrategy: false },
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const info = String(await client.sendCommand(['INFO', 'cluster']));
    return /cluster_enabled:1/.test(info);
  } catch (error) {
    throw new RedisUnreachableError(url, error);
  } finally {
    client.destroy();
  }
}

/**
 * A fleet on the Redis at `url` (a single server or a cluster node, found out
 * by asking), connected: for commands that should fail at once, with one clear
 * line, when Redis is not there — rather than start alone.
 */
export async function connectFleet(
  url: string,
  options: Omit<RedisFleetOptions, 'url' | 'cluster' | 'client' | 'link'> = {},
  timeoutMs = 5000,
): Promise<RedisFleet> {
  const fleet = new RedisFleet({ ...options, url, cluster: await isCluster(url, timeoutMs) });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fleet.ready,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return fleet;
  } catch (error) {
    await fleet.close();
    throw new RedisUnreachableError(url, error);
  } finally {
    clearTimeout(timer);
  }
}
