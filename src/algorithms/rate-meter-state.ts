/** Serialisable state of a `RateMeter`; numbers only, times as wall-clock epoch ms. */
export type RateMeterState = {
  /** `sentAt` of the first sample (`NEVER` before it). */
  startedAt: number;
  /** `at` of the latest sample. */
  lastAt: number;
  /** Average round-trip time of accepted requests, ms (0 before the first). */
  rttMs: number;
  /** Latest time the rate was unpaced. */
  unpacedAt: number;
  /** Start of the latest server-requested pause. */
  pauseFrom: number;
  /** End of the latest server-requested pause, 0 when none. */
  pauseTo: number;
  /** Requests the pacer offered since the latest pause ended. */
  offeredSincePause: number;
  /** Accepted outcomes, decayed count. */
  acceptedSum: number;
  /** Time of the accepted count. */
  acceptedAt: number;
  /** Requests offered by the pacer, decayed count. */
  offeredSum: number;
  /** Time of the offered count. */
  offeredAt: number;
};
