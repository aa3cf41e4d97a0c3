import type { AloneGrants, FleetGrant, Share } from './fleet-grant.js';
import type { FleetView } from './fleet-view.js';
import type { ScopeCalls } from './scope-calls.js';
import type { WakeUp } from './wake-up.js';

/** What the per-request queue of a scope works with. */
export interface QueueParts {
  readonly view: FleetView;
  readonly calls: ScopeCalls;
  readonly alone: AloneGrants;
  readonly wakeUp: WakeUp;
  /** This worker's rate lease on the scope: callers queued here are served from its share while one is held. */
  readonly lease: { readonly share: Share | undefined; grant(): FleetGrant | undefined };
  /** Told when the fleet's window or rate changed. */
  readonly changed: () => void;
  /** Listens for the scope's announcements. */
  readonly subscribe: () => Promise<void>;
  /** Whether they are heard yet (the subscription confirmed). */
  readonly heard: () => boolean;
  /** Frees a grant not used. */
  readonly release: (grant: FleetGrant) => void;
  /** This worker was handed the scope's learning lock (see `LEARN`): it learns now, or soon. */
  readonly learn: (when: 'now' | 'soon') => void;
}
