import { describe, expect, it } from 'vitest';
import { AcceptedInflight } from '../../src/controller/accepted-inflight.js';

/** Successes at 200 in flight on 500 ms pages, sent 10 ms apart until `until`. */
function heldAt200(until: number): AcceptedInflight {
  const accepted = new AcceptedInflight();
  for (let sentAt = 0; sentAt < until; sentAt += 10) accepted.onAccepted(sentAt, 200, sentAt + 500);
  return accepted;
}

describe('AcceptedInflight', () => {
  it('keeps the most in flight of the last 32 successes', () => {
    const accepted = heldAt200(1000);
    for (let i = 0; i < 32; i++) accepted.onAccepted(2000 + i, 50, 2500 + i);
    expect(accepted.max).toBe(50);
  });

  it('lets no success sent in the refill after a pause lower it', () => {
    const accepted = heldAt200(1000);
    accepted.notePause(2000);
    // Sent from the resume on, each less than its 500 ms round trip after it, at a climbing count.
    for (let i = 0; i < 40; i++) accepted.onAccepted(2000 + 10 * i, 5 * i, 2500 + 10 * i);
    expect(accepted.max).toBe(200);
  });

  it('takes successes sent a round trip after the pause as before', () => {
    const accepted = heldAt200(1000);
    accepted.notePause(2000);
    for (let i = 0; i < 32; i++) accepted.onAccepted(2600 + i, 150, 3100 + i);
    expect(accepted.max).toBe(150);
  });

  it('takes a success in the refill that raises it', () => {
    const accepted = heldAt200(1000);
    accepted.notePause(2000);
    accepted.onAccepted(2100, 230, 2600);
    expect(accepted.max).toBe(230);
  });
});
