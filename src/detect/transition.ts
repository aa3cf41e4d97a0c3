/**
 * What an alarm-raising detector reports when its state changes: `alarm` when
 * it starts to fire, `clear` when it stops. Detectors return `undefined` when
 * nothing changed, so the controller emits one event per change, not per sample.
 */
export type AlarmTransition = 'alarm' | 'clear';
