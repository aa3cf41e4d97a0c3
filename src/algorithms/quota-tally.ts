/** Others' use is read over at least this much of a window's send times, ms. */
const MIN_SPAN_MS = 500;

/** An answer read: when it was sent and arrived, and `remaining` after it. */
interface Answer {
  sentAt: number;
  at: number;
  remaining: number;
}

/** A later answer of the window, with ours counted from the first answer to it (it included). */
interface Mark extends Answer {
  ours: number;
}

/**
 * What the answers of one quota window tell together:
 *
 * - the freshest `remaining`: the latest-sent answer's (one overtaken by a
 *   later-sent answer's tells of fewer arrivals);
 * - how fast others (other clients of the same quota, unseen) use the window
 *   up: what `remaining` fell by from the window's first answer to a later
 *   one, by send time, less our own requests sent in between. A quota spread
 *   to the last request with others drawing on it too runs out before the
 *   window ends, and the last request is refused: what they will take by the
 *   end is set aside.
 *
 * Ours in between are counted by their answers, so the later answer read is
 * one whose earlier-sent requests have had time to be answered: a mark taken
 * at the latest answer is read once another round trip of its own has
 * passed (an unanswered request of ours would pass for someone else's).
 */
export class QuotaTally {
  /** The window tallied (its end), its first and latest answers, and how many were read. */
  #end = -Infinity;
  #first: Answer | undefined;
  #latest: Answer | undefined;
  #answers = 0;
  /** The mark read, and the one maturing. */
  #read: Mark | undefined;
  #maturing: Mark | undefined;

  /** The freshest `remaining` of the window tallied. */
  get remaining(): number {
    return this.#latest?.remaining ?? 0;
  }

  /**
   * Counts an answer of ours in the window ending at `end`, the latest
   * boundary seen at `boundary` (one sent after the window tallied ends, or
   * after a boundary its first answer was sent before, starts the next);
   * returns what others are expected to take from its send time to the end.
   */
  onAnswer(answer: Answer, end: number, boundary: number): number {
    const first = this.#first;
    const tallied =
      first !== undefined &&
      answer.sentAt < this.#end &&
      !(first.sentAt < boundary && answer.sentAt >= boundary);
    this.#end = end; // the same window, its end perhaps better known; or the next
    if (!tallied) {
      this.#first = this.#latest = answer;
      this.#answers = 1;
      this.#read = undefined;
      this.#maturing = { ...answer, ours: 0 };
      return 0;
    }
    this.#count(answer);
    const from = this.#first as Answer;
    const read = this.#read;
    if (read === undefined || read.sentAt - from.sentAt < MIN_SPAN_MS) return 0;
    const theirs = from.remaining - read.remaining - read.ours;
    return theirs > 0 ? (theirs * (end - answer.sentAt)) / (read.sentAt - from.sentAt) : 0;
  }

  /** Counts one more of ours against the marks it falls before; matures the maturing mark. */
  #count(answer: Answer): void {
    this.#answers++;
    const marks = [this.#read, this.#maturing];
    if (answer.sentAt < (this.#first as Answer).sentAt) {
      // Sent before the first: it is the first now, and the old one is one of ours after it.
      this.#first = answer;
      for (const mark of marks) if (mark) mark.ours++;
      return;
    }
    for (const mark of marks) if (mark && answer.sentAt <= mark.sentAt) mark.ours++;
    if (answer.sentAt > (this.#latest as Answer).sentAt) this.#latest = answer;
    const maturing = this.#maturing as Mark;
    if (answer.at - maturing.at >= maturing.at - maturing.sentAt) {
      this.#read = maturing;
      this.#maturing = { ...(this.#latest as Answer), ours: this.#answers - 1 };
    }
  }
}
