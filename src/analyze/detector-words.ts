import type { BimodalResult } from '../detect/bimodal.js';
import type { RampVerdict } from '../detect/ramp.js';
import { formatMs } from './text-table.js';

/** The per-client ramp question, as `analyze` and `report` ask it. */
export const RAMP_QUESTION = 'Slower with every request sent? (a per-client ramp)';
/** The queue-with-a-timeout question, as `analyze` and `report` ask it. */
export const BIMODAL_QUESTION = 'Two groups of latencies? (a queue with a timeout)';

const RAMP_WORDS: Record<RampVerdict, string> = {
  ramp: 'Yes: latency climbs with the number of requests sent, whatever the rate — the server slows each client down as it asks more.',
  'rate-driven':
    'No: latency follows the sending rate — ordinary load, which slowing down relieves.',
  confounded:
    'Cannot tell: the request count and the rate rose together; vary the rate to tell them apart.',
  none: 'No: latency does not grow with the requests sent.',
  'insufficient-data': 'Too few requests to tell.',
};

/** The ramp detector's verdict in words (its statistics stay in its `explanation`). */
export function rampWords(verdict: RampVerdict): string {
  return RAMP_WORDS[verdict];
}

/** The bimodal detector's finding in words (Ashman's D stays in its `explanation`). */
export function bimodalWords(b: BimodalResult): string {
  if (!b.bimodal) return 'No: the latencies form one group.';
  const share = (mode: BimodalResult['fast']) => `${Math.round(100 * mode.share)} %`;
  return `Yes: ${share(b.fast)} around ${formatMs(b.fast.medianMs)} ms and ${share(b.slow)} around ${formatMs(b.slow.medianMs)} ms — a queue that answers some requests only after a wait.`;
}
