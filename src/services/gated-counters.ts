import type { CounterStore } from "../store/ports/counters.js";
import type { CommitGate } from "./context.js";

/**
 * The CounterStore methods that change counters. `readCredits` is left out: the refill it may store is what any
 * reader would compute at that time. gated-counters.test.ts checks this list against the port.
 */
export const COUNTER_WRITES = ["consume", "setCredits", "adjustCredits", "deleteCredits"] as const;

/**
 * A view of `counters` whose every write first passes the call's commit gate (reads pass through): the counters half
 * of a state-changing call's stores, the audited documents (store/audit/audited-documents.ts) being the other. A
 * write the gate refuses is never sent to the store.
 */
export function gatedCounters(counters: CounterStore, gate: CommitGate): CounterStore {
  const view: Record<string, unknown> = Object.create(counters);
  for (const method of COUNTER_WRITES) {
    const write = counters[method] as (...args: unknown[]) => Promise<unknown>;
    view[method] = async (...args: unknown[]) => {
      gate.beginCommit();
      return write.apply(counters, args);
    };
  }
  return view as unknown as CounterStore;
}
