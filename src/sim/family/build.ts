import { type Random, seededRandom } from '../../random.js';
import { BackgroundModel } from '../models/background.js';
import { ConcurrencyCapModel } from '../models/concurrency-cap.js';
import { FixedWindowModel } from '../models/fixed-window.js';
import { GcraModel } from '../models/gcra.js';
import { LimitReqModel } from '../models/limit-req.js';
import { LumpyBucketModel } from '../models/lumpy-bucket.js';
import type { ServerModel } from '../models/model.js';
import { NoiseModel } from '../models/noise.js';
import { PacingRampModel } from '../models/pacing-ramp.js';
import { PenaltyBoxModel } from '../models/penalty-box.js';
import { QuotaModel } from '../models/quota.js';
import { RefusalFormModel } from '../models/refusal-form.js';
import type { RetryAfterForm } from '../models/retry-after.js';
import { SkewedClockModel } from '../models/skewed-clock.js';
import { SlidingCounterModel } from '../models/sliding-counter.js';
import { SlidingLogModel } from '../models/sliding-log.js';
import { TokenBucketModel } from '../models/token-bucket.js';
import { FamilyModel } from './family-model.js';
import { type FamilyServer, FIELD_DEFAULTS, type FieldKind } from './server.js';

/**
 * The server model of a family server, layered from the outside in: its
 * clock (skew), unrelated noise, the refusal's status and Retry-After form,
 * an unseen consumer, and the limit itself. The model records every arrival
 * it answers (see {@link FamilyModel}), for server-side figures.
 */
export function familyModel(server: FamilyServer): FamilyModel {
  let model = limitModel(server);
  if (server.background !== undefined) model = new BackgroundModel(model, server.background);
  model = new RefusalFormModel(model, {
    status: server.refusalStatus,
    ...(server.retryAfter === 'fixed' ? { retryAfterS: server.retryAfterS } : {}),
  });
  const noise =
    server.noise > 0
      ? new NoiseModel(model, {
          probability: server.noise,
          latencyMs: server.latencyMs,
          random: seededRandom(`family-noise:${server.seed}:${server.index}`),
        })
      : undefined;
  model = noise ?? model;
  if (server.dateSkewMs !== 0) model = new SkewedClockModel(model, server.dateSkewMs);
  return new FamilyModel(model, noise);
}

/** Windows this long or longer are on the clock (a per-minute counter), shorter ones start at an arrival. */
export const ALIGNED_FROM_MS = 10_000;

function limitModel(server: FamilyServer): ServerModel {
  const random = seededRandom(`family-latency:${server.seed}:${server.index}`);
  const latency = { latencyMs: server.latencyMs, jitterMs: server.jitterMs, random };
  const retryAfter = retryAfterForm(server);
  const rate = server.rate;
  switch (server.kind) {
    case 'fixed-window':
      return new FixedWindowModel({
        rate,
        windowMs: server.windowMs,
        aligned: server.windowMs >= ALIGNED_FROM_MS,
        retryAfter,
        ...latency,
      });
    case 'sliding-log':
      return new SlidingLogModel({ rate, windowMs: server.windowMs, retryAfter, ...latency });
    case 'token-bucket':
      return new TokenBucketModel({ rate, burst: server.burst, retryAfter, ...latency });
    case 'gcra':
      return new GcraModel({ rate, burst: server.burst, retryAfter, ...latency });
    case 'concurrency-cap':
      return new ConcurrencyCapModel({ limit: server.slots, status: 429, retryAfter, ...latency });
    case 'quota':
      return new QuotaModel({
        limit: quotaLimit(server),
        windowMs: server.windowMs,
        headers: server.quota.headers,
        resetForm: server.quota.resetForm,
        retryAfter,
        ...latency,
      });
    case 'count-ramp':
    case 'rate-ramp':
      return new PacingRampModel({ ...(server.ramp ?? {}), ...latency });
    case 'limit-req':
    case 'sliding-counter':
    case 'penalty-box':
    case 'lumpy-bucket':
      return fieldModel(server, server.kind, { retryAfter, ...latency });
  }
}

/** What every limit model of a family server is given: its latency and Retry-After form. */
interface Serving {
  readonly retryAfter: RetryAfterForm;
  readonly latencyMs: number;
  readonly jitterMs: number;
  readonly random: Random;
}

/** The model of a field limit (`FieldKind`), refusing with 429 (the refusal layer words it). */
function fieldModel(server: FamilyServer, kind: FieldKind, serving: Serving): ServerModel {
  const field = server.field ?? FIELD_DEFAULTS;
  const rate = server.rate;
  const windowMs = server.windowMs;
  switch (kind) {
    case 'limit-req':
      return new LimitReqModel({
        rate,
        burst: server.burst,
        delay: field.delay,
        status: 429,
        ...serving,
      });
    case 'sliding-counter':
      return new SlidingCounterModel({
        rate,
        windowMs,
        countsRefused: field.countsRefused,
        phaseMs: field.phaseMs,
        ...serving,
      });
    case 'penalty-box':
      return new PenaltyBoxModel({
        rate,
        windowMs,
        blockMs: field.blockMs,
        phaseMs: field.phaseMs,
        ...serving,
      });
    case 'lumpy-bucket':
      return new LumpyBucketModel({
        rate,
        fillIntervalMs: windowMs,
        burst: server.burst,
        phaseMs: field.phaseMs,
        publishes: field.publishes,
        ...serving,
      });
  }
}

/** Requests per window of a quota server. */
export function quotaLimit(server: FamilyServer): number {
  return Math.max(1, Math.round(((server.rate[0]?.rate ?? 1) * server.windowMs) / 1000));
}

/** The wrapped model's own Retry-After form (a constant is written by the refusal layer). */
function retryAfterForm(server: FamilyServer): RetryAfterForm {
  switch (server.retryAfter) {
    case 'wait':
      return 'seconds';
    case 'fixed':
      return 'none';
    default:
      return server.retryAfter;
  }
}
