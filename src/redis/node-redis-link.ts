import { type MessageListener, type RedisLink, scanNode } from './link.js';

/** The part of a node-redis client (`createClient` from `redis`) the fleet uses. */
export interface NodeRedisClientLike {
  sendCommand(args: string[]): Promise<unknown>;
  sSubscribe(channel: string, listener: MessageListener): Promise<unknown>;
  sUnsubscribe(channel: string): Promise<unknown>;
  duplicate(): NodeRedisClientLike;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  on(event: 'error', listener: (error: unknown) => void): unknown;
}

/** The part of a node-redis cluster (`createCluster` from `redis`) the fleet uses. */
export interface NodeRedisClusterLike {
  sendCommand(firstKey: string | undefined, isReadonly: boolean, args: string[]): Promise<unknown>;
  sSubscribe(channel: string, listener: MessageListener): Promise<unknown>;
  sUnsubscribe(channel: string): Promise<unknown>;
  readonly masters: readonly unknown[];
  nodeClient(node: never): Promise<{ sendCommand(args: string[]): Promise<unknown> }>;
}

/** Whether `value` looks like a node-redis cluster. */
export function isNodeRedisCluster(value: unknown): value is NodeRedisClusterLike {
  const cluster = value as Partial<NodeRedisClusterLike> | null;
  return typeof cluster?.nodeClient === 'function' && Array.isArray(cluster.masters);
}

/** Whether `value` looks like a node-redis client. */
export function isNodeRedisClient(value: unknown): value is NodeRedisClientLike {
  const client = value as Partial<NodeRedisClientLike> | null;
  return typeof client?.sendCommand === 'function' && typeof client.sSubscribe === 'function';
}

/**
 * A {@link RedisLink} over a connected node-redis client or cluster. A client
 * gets a duplicate connection for its subscriptions (opened on first use,
 * closed by `close()`); a cluster keeps its own per-shard subscribers.
 */
export function nodeRedisLink(redis: NodeRedisClientLike | NodeRedisClusterLike): RedisLink {
  if (isNodeRedisCluster(redis)) return clusterLink(redis);
  let subscriber: Promise<NodeRedisClientLike> | undefined;
  const connected = (): Promise<NodeRedisClientLike> => {
    subscriber ??= (async () => {
      const duplicate = redis.duplicate();
      duplicate.on('error', () => undefined); // reconnects by itself; commands report failures
      await duplicate.connect();
      return duplicate;
    })();
    return subscriber;
  };
  return {
    command: (_key, args) => redis.sendCommand([...args]),
    subscribe: async (channel, listener) => {
      await (await connected()).sSubscribe(channel, listener);
    },
    unsubscribe: async (channel) => {
      await (await connected()).sUnsubscribe(channel);
    },
    scan: (pattern) => scanNode((args) => redis.sendCommand([...args]), pattern),
    close: async () => {
      const opened = subscriber;
      subscriber = undefined;
      if (opened) await (await opened).close();
    },
  };
}

function clusterLink(cluster: NodeRedisClusterLike): RedisLink {
  return {
    command: (key, args) => cluster.sendCommand(key, false, [...args]),
    subscribe: async (channel, listener) => {
      await cluster.sSubscribe(channel, listener);
    },
    unsubscribe: async (channel) => {
      await cluster.sUnsubscribe(channel);
    },
    scan: (pattern) => scanMasters(cluster, pattern),
    close: async () => undefined,
  };
}

async function* scanMasters(cluster: NodeRedisClusterLike, pattern: string): AsyncIterable<string> {
  for (const master of cluster.masters) {
    const node = await cluster.nodeClient(master as never);
    yield* scanNode((args) => node.sendCommand([...args]), pattern);
  }
}
