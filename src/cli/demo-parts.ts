import { writeFile } from 'node:fs/promises';
import type { ExchangeLog } from '../sim/exchange-log.js';
import type { RunSummary } from '../sim/summary.js';

/** What the demo's progress columns mean, printed above them. */
export const DEMO_COLUMNS =
  'every 2 s: t = seconds into the run; limit = requests ratewise lets run at once (– for naive, which has none); ok and 429s = responses so far';

/**
 * One sentence comparing the two runs: how many more (or fewer) pages
 * ratewise fetched, and how many fewer refusals it caused.
 */
export function demoVerdict(mine: RunSummary, theirs: RunSummary, seconds: number): string {
  return `In ${seconds} s each, ratewise fetched ${mine.ok} pages and naive ${theirs.ok} (${change(mine.ok, theirs.ok, 'more', 'fewer')}), and was refused ${mine.rejected} times to naive's ${theirs.rejected} (${change(mine.rejected, theirs.rejected, 'more', 'fewer')}).`;
}

function change(mine: number, theirs: number, up: string, down: string): string {
  if (theirs === 0) return mine === 0 ? 'the same' : `${mine} ${up}`;
  const share = (100 * (mine - theirs)) / theirs;
  if (Math.round(share) === 0) return 'about the same';
  return `${Math.abs(share).toFixed(0)} % ${share > 0 ? up : down}`;
}

/**
 * Writes a run's exchanges as a plain request log (`ISO8601 url latency_ms
 * status`, one line per response, by completion), so `ratewise analyze`
 * and `report --compare` read a run that logged no events.
 */
export async function writeExchangeLog(
  path: string,
  log: ExchangeLog,
  wallStart: number,
  url: string,
): Promise<void> {
  const order = log.doneAt
    .map((_, i) => i)
    .sort((a, b) => (log.doneAt[a] as number) - (log.doneAt[b] as number));
  const lines = order.map((i) => {
    const done = log.doneAt[i] as number;
    const latency = done - (log.sentAt[i] as number);
    const status = log.status[i] === 0 ? '' : ` ${log.status[i]}`;
    return `${new Date(wallStart + done).toISOString()} ${url} ${Math.round(latency)}${status}\n`;
  });
  await writeFile(path, lines.join(''));
}
