/**
 * Work deferred to the end of the current event-loop turn, in two phases: `store` (the embedded journal's group
 * commit) runs first, then `respond` (REST response writes). Both phases are scheduled together as two
 * `setImmediate`s, and Node drains the microtask queue between them, so a request whose answer waited on this
 * turn's commit is still answered in this turn.
 *
 * Responses go out this way much as Redis writes its replies just before it sleeps: every response produced while
 * one poll phase's readable sockets are handled is written back to back, so the client side wakes once per
 * batch instead of once per response. Measured on REST (h2load, 50 connections, this 2-core machine): about
 * +30 % req/s and 20 % less server CPU per request than writing each response at once. A response waits at
 * most for the rest of its turn.
 */
export type TurnEndPhase = "store" | "respond";

// Each phase's queue holds task and argument side by side, so a caller with an argument needs no closure per task.
const queues: Record<TurnEndPhase, unknown[]> = { store: [], respond: [] };
let scheduled = false;

/**
 * Runs `task(arg)` at the end of this turn, in its phase; tasks of one phase run in the order they were queued. Pass
 * the per-call value as `arg` rather than closing over it: on the verification path every closure saved counts.
 */
export function atTurnEnd<T>(phase: TurnEndPhase, task: (arg: T) => void, arg?: T): void {
  queues[phase].push(task, arg);
  schedule();
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(drain, "store");
  setImmediate(drainLast);
}

function drain(phase: TurnEndPhase): void {
  const batch = queues[phase];
  queues[phase] = [];
  for (let i = 0; i < batch.length; i += 2) {
    try {
      (batch[i] as (arg: unknown) => void)(batch[i + 1]);
    } catch (error) {
      // One failed task must not strand the others of its batch.
      console.error(`turn-end ${phase} task failed:`, error);
    }
  }
}

function drainLast(): void {
  scheduled = false;
  drain("respond");
  // Store work queued by microtasks after the store phase ran still needs a turn.
  if (queues.store.length > 0 || queues.respond.length > 0) schedule();
}

/** Resolves in the next turn's check phase, after the I/O callbacks waiting now: long work yields with it. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
