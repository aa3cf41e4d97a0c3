import { formatNumber, textTable } from '../analyze/text-table.js';
import { UsageError } from './usage-error.js';

/** Options of `ratewise fleet status`. */
export interface FleetStatusOptions {
  /** The fleet's Redis (a single server or any node of a cluster). */
  redis: string;
  /** The fleet's key prefix. @default 'rw' */
  prefix: string;
  /** Print JSON instead of a table. */
  json?: boolean;
}

/** Prints every scope's fleet state. Exit 0; a URL that is not redis:// is a usage error. */
export async function fleetStatus(
  options: FleetStatusOptions,
  out: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  if (!/^rediss?:\/\//.test(options.redis))
    throw new UsageError(`--redis must be a redis:// URL, got ${JSON.stringify(options.redis)}`);
  const { connectFleet } = await import('../redis/connect.js');
  const { readFleetStatus } = await import('../redis/status.js');
  const fleet = await connectFleet(options.redis, { log: () => undefined, prefix: options.prefix });
  try {
    const scopes = await readFleetStatus(fleet.link, options.prefix);
    if (options.json) {
      out.write(`${JSON.stringify(scopes)}\n`);
      return 0;
    }
    if (scopes.length === 0) {
      out.write(`no fleet scope under ${options.prefix}: in ${options.redis}\n`);
      return 0;
    }
    const rows = scopes.map((s) => [
      s.scope,
      String(s.window),
      formatNumber(s.rate),
      String(s.epoch),
      Object.entries(s.inflight)
        .map(([worker, n]) => `${worker}:${n}`)
        .join(' ') || '-',
      String(s.workers.length),
      s.pausedForMs > 0 ? `${(s.pausedForMs / 1000).toFixed(1)} s` : '-',
    ]);
    const columns = [
      { header: 'scope', align: 'left' as const },
      { header: 'window' },
      { header: 'rate/s' },
      { header: 'epoch' },
      { header: 'in flight by worker', align: 'left' as const },
      { header: 'workers' },
      { header: 'paused' },
    ];
    out.write(`${textTable(columns, rows)}\n`);
    return 0;
  } finally {
    await fleet.close();
  }
}
