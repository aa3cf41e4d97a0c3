import { type Clock, systemClock } from '../clock.js';

/**
 * `clock` with a reading that never goes backward. A clock you pass in may be
 * a wall clock in disguise: set back by an hour, every pacer token, pause and
 * timeout measured on it would wait that hour. Here a backward jump is
 * absorbed — time carries on from the latest reading, as if the jump had not
 * happened — so nothing stalls. (A forward jump cannot be told from time
 * passing: it ends pauses early, which costs at most one early request.)
 * `systemClock` is monotonic already and is returned as it is.
 */
export function steadyClock(clock: Clock): Clock {
  if (clock === systemClock) return clock;
  let latest = -Infinity;
  let offset = 0;
  return {
    now() {
      let time = clock.now() + offset;
      if (time < latest) {
        offset += latest - time;
        time = latest;
      }
      latest = time;
      return time;
    },
    wallNow: () => clock.wallNow(),
    setTimer: (ms, callback) => clock.setTimer(ms, callback),
    sleep: (ms, signal) => clock.sleep(ms, signal),
  };
}
