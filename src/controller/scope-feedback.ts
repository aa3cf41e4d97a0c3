import { penaltyAsked } from '../algorithms/penalty-spells.js';
import {
  type AlarmAction,
  type ConcurrencyLimit,
  isRefusal,
  type RatePolicy,
  type Sample,
} from '../algorithms/sample.js';
import type { Signal } from '../signal.js';
import { AcceptedInflight } from './accepted-inflight.js';
import { opensBlindTrial } from './blind-trial.js';
import { CapEvidence } from './cap-evidence.js';
import { CapTrial, MIN_REFUSED_INFLIGHT, type TrialVerdict } from './cap-trial.js';
import { LatencyGuard, type LatencyGuardOptions } from './latency-guard.js';
import { OverloadFilter, type RatePhase } from './overload-filter.js';
import { capPause } from './pause-cap.js';

/** A request as its outcome is judged: when it left and how many were in flight then. */
export interface SentRequest {
  readonly sentAt: number;
  readonly inflightAtSend: number;
}

/** An outcome as the algorithms get it, and as it was heard. */
export interface Judged {
  /** What the algorithms learn from. */
  readonly sample: Sample;
  /** The signal as classified (with any pause capped): what observers see. */
  readonly heard: Signal;
  /** Why the pause was capped, when it was. */
  readonly cappedCause: string | undefined;
}

/**
 * How one scope learns from outcomes: a pause longer than `maxPauseMs` is
 * capped, bare 5xx noise is filtered, the outcome becomes a {@link Sample}
 * (marked as refused for its concurrency when it shows a cap), the
 * concurrency and rate algorithms take it, and successes' latencies go to the
 * latency guard, whose alarms go to the rate.
 */
export class ScopeFeedback {
  readonly limit: ConcurrencyLimit;
  readonly rate: RatePolicy;
  readonly #maxPauseMs: number;
  readonly #guardOptions: LatencyGuardOptions | false | undefined;
  /** Created with the first success: a scope with no traffic needs no latency window. */
  #guard: LatencyGuard | undefined;
  /** Created with the first outcome. */
  #overload: OverloadFilter | undefined;
  /** The in-flight counts recent successes were sent at; created with the first success. */
  #acceptedInflight: AcceptedInflight | undefined;
  /** Created with the first success, or with a blind trial (see {@link opensBlindTrial}). */
  #capEvidence: CapEvidence | undefined;
  /** Created with the first success, like the evidence: the slow start's first refusal, read as a cap on trial. */
  #capTrial: CapTrial | undefined;
  /** Whether a refusal came before any success: only the first such may open a blind trial. */
  #refusedBeforeSuccess = false;
  /** Since when the rate has been paced; undefined while unpaced (no boxed Infinity per scope). */
  #pacedSince: number | undefined;

  constructor(
    limit: ConcurrencyLimit,
    rate: RatePolicy,
    maxPauseMs: number,
    guard: LatencyGuardOptions | false | undefined,
  ) {
    this.limit = limit;
    this.rate = rate;
    this.#maxPauseMs = maxPauseMs;
    this.#guardOptions = guard;
  }

  /** The latency guard's latest ratio of recent to baseline latency (0 before any). */
  get latencyRatio(): number {
    return this.#guard?.ratio ?? 0;
  }

  /** Notes the rate now in force (pacing since `now`, or unpaced). */
  notePaced(now: number): void {
    if (this.rate.rate === Infinity) this.#pacedSince = undefined;
    else if (this.#pacedSince === undefined || now < this.#pacedSince) this.#pacedSince = now;
  }

  /** Judges an outcome reported at `at` for `request`, with `outstanding` others in flight. */
  judge(request: SentRequest, at: number, reported: Signal, outstanding: number): Judged {
    const capped = capPause(reported, this.#maxPauseMs);
    const heard = capped?.signal ?? reported;
    this.#overload ??= new OverloadFilter();
    const signal = this.#overload.judge(heard, this.#phase());
    return {
      sample: this.#sampleOf(request, at, signal, outstanding, isBare5xx(heard)),
      heard,
      cappedCause: capped?.cause,
    };
  }

  /** How the rate stands now: unpaced, held or probing. */
  #phase(): RatePhase {
    if (this.rate.probing === true) return 'probing';
    return this.#pacedSince === undefined ? 'unpaced' : 'held';
  }

  /** Feeds a judged sample to the algorithms; returns the latency alarm it raised, if any. */
  learn(sample: Sample): AlarmAction | undefined {
    this.limit.onSample(sample);
    this.rate.onSample(sample);
    this.#acceptedInflight?.notePause(this.rate.pausedUntil);
    return sample.signal.kind === 'ok' ? this.#watchLatency(sample.sentAt, sample.at) : undefined;
  }

  /**
   * The sample an outcome makes. A refusal sent at more in flight than any
   * recent success ({@link AcceptedInflight}: the refill after a pause does
   * not lower that) is marked as refused for its concurrency — unless it was
   * sent unpaced (a slow start raises both at once) or the rate was probing
   * (which raises the concurrency too): then it takes the refusals of
   * separate congestion events to show the cap ({@link CapEvidence}), and
   * once they have, a refusal at as many in flight as the cap refused counts
   * too. The first such refusal of an unpaced slow start is a cap on trial
   * ({@link CapTrial}). At a held rate, one refusal at two in flight is the
   * rate's ({@link MIN_REFUSED_INFLIGHT}): a slow scope paced over a rate
   * limit of about one request per round trip is refused at its second in
   * flight, and read as a cap of one its rate was never cut (refused again and
   * again, each time pausing in full); a real cap of one is shown by the
   * evidence. A `bare` 5xx (no `Retry-After`) passed on as a refusal at a
   * held rate is the overload filter's question to the rate —
   * does a slower rate stop these? — and one refusal past the recent
   * successes does not send it to the concurrency instead (the filter would
   * judge a cut that never came, and take a rate limit's refusals for noise).
   * Nor does a penalty's (see `PenaltySpells`): a rate limit blocks the client
   * that went over, and a cut concurrency left the rate that tripped it.
   */
  #sampleOf(
    request: SentRequest,
    at: number,
    signal: Signal,
    outstanding: number,
    bare: boolean,
  ): Sample {
    const inflight = request.inflightAtSend;
    const sample: Sample = { sentAt: request.sentAt, at, inflight, signal, outstanding };
    if (signal.kind === 'ok') {
      this.#acceptedInflight ??= new AcceptedInflight();
      this.#capEvidence ??= new CapEvidence();
      this.#capTrial ??= new CapTrial();
      this.#acceptedInflight.onAccepted(request.sentAt, inflight, at);
      this.#capEvidence.onAccepted(inflight, at, at - request.sentAt);
      const trial = this.#capTrial.onAccepted(sample);
      if (trial !== undefined) sample.capTrial = trial;
    } else if (isRefusal(sample)) {
      if (this.#acceptedInflight === undefined) this.#refusedFirst(sample);
      // A blind trial's refusals come before any success: none was accepted at any in flight.
      const accepted =
        this.#acceptedInflight?.max ?? (this.#capTrial === undefined ? undefined : 0);
      const evidence = this.#capEvidence;
      if (accepted === undefined || evidence === undefined) return sample;
      evidence.onRefused(sample);
      const paced = request.sentAt >= (this.#pacedSince ?? Infinity);
      const trial = this.#trialVerdict(sample, paced, accepted);
      if (trial === 'tentative') sample.capTrial = 'begins';
      else if (trial === 'refuted' || trial === 'lowered') sample.capTrial = trial;
      // A request sent alone met no concurrency cap: refused, it was refused for the rate (read
      // as the cap's at a concurrency limit of one, nothing would cut and the rate would hold).
      sample.overConcurrency =
        inflight > 1 &&
        (trial === 'tentative' ||
          trial === 'cap' ||
          trial === 'lowered' ||
          evidence.explains(inflight) ||
          (inflight > accepted &&
            inflight >= MIN_REFUSED_INFLIGHT &&
            signal.kind === 'throttled' &&
            !bare &&
            penaltyAsked(sample) === 0 &&
            paced &&
            this.#capTrial?.lagging !== true &&
            this.rate.probing !== true));
    }
    return sample;
  }

  /** A refusal before any success: the first opens a blind cap on trial if {@link opensBlindTrial}. */
  #refusedFirst(sample: Sample): void {
    if (this.#refusedBeforeSuccess) return;
    this.#refusedBeforeSuccess = true;
    if (!opensBlindTrial(sample)) return;
    this.#capEvidence = new CapEvidence();
    this.#capTrial = new CapTrial(true);
  }

  /** How a refusal stands against the cap on trial; only a throttling refusal of a scope never paced can start one. */
  #trialVerdict(sample: Sample, paced: boolean, accepted: number): TrialVerdict {
    const trial = this.#capTrial;
    if (trial === undefined || sample.signal.kind !== 'throttled') return 'other';
    return trial.judge(sample, !paced && this.rate.rate === Infinity, accepted);
  }

  /** Feeds a success's latency to the guard; an alarm action goes to the rate algorithm. */
  #watchLatency(sentAt: number, at: number): AlarmAction | undefined {
    if (this.#guardOptions === false) return undefined;
    this.#guard ??= new LatencyGuard(this.#guardOptions);
    const action = this.#guard.observe(sentAt, at);
    if (action) this.rate.onAlarm?.(at, action);
    return action;
  }
}

/** Whether a heard outcome is a 502, 503 or 504 without a `Retry-After`. */
function isBare5xx(heard: Signal): boolean {
  return heard.kind === 'overloaded' && heard.retryAfterMs === undefined;
}
