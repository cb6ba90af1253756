import { DeadlineExceededError, type CommitGate } from "../services/context.js";

// setTimeout's ceiling; a longer deadline needs no timer (its gate still holds it).
export const MAX_TIMER_MS = 2 ** 31 - 1;

const OPEN = 0;
const COMMITTING = 1;
const EXPIRED = 2;

/**
 * The deadline of one call, from the transport's header, and its commit gate. Three parties read it: the pipeline
 * refuses a call whose deadline passed before it ran (`refuseIfPassed`), the writes call `beginCommit` before they
 * commit, and the transport's timer asks `expire` whether it may answer DEADLINE_EXCEEDED early. Once a call has
 * begun committing the timer stands down and the call is answered with its result: the client may have given up,
 * but what the server answers always matches what it wrote.
 */
export class CallDeadline implements CommitGate {
  /** `performance.now()` at which the deadline passes. */
  private readonly at: number;
  private state = OPEN;

  /**
   * `timeoutMs` from now. Sub-millisecond parts are dropped, erring early: timers and Connect's `timeoutMs()` count
   * whole milliseconds, and a clock coarser than a microsecond must still see `grpc-timeout: 1n` as passed.
   */
  constructor(timeoutMs: number) {
    this.at = performance.now() + Math.floor(timeoutMs);
  }

  /** Throws DeadlineExceededError, before anything is done, when the deadline passed before the call ran. */
  refuseIfPassed(): void {
    if (this.passed()) throw new DeadlineExceededError("the deadline passed before the call ran; nothing was done");
  }

  beginCommit(): void {
    if (this.state === COMMITTING) return;
    if (this.passed()) throw new DeadlineExceededError("the deadline passed before the call could write; nothing was written");
    this.state = COMMITTING;
  }

  /** The timer's question: true (and the call counts as expired) unless the call has begun committing. */
  expire(): boolean {
    if (this.state === COMMITTING) return false;
    this.state = EXPIRED;
    return true;
  }

  private passed(): boolean {
    if (this.state === EXPIRED) return true;
    if (performance.now() < this.at) return false;
    this.state = EXPIRED;
    return true;
  }
}
