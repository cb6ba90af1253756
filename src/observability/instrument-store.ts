import type { CounterStore } from "../store/ports/counters.js";
import type { DocumentStore } from "../store/ports/documents.js";
import { UniqueViolationError } from "../store/errors.js";
import type { Metrics, StoreTally } from "./metrics.js";

const DOCUMENT_PARTS = [
  "workspaces", "rootKeys", "apis", "keys", "identities", "ratelimitNamespaces", "ratelimitOverrides", "permissions", "roles", "migrationJobs", "webhooks", "webhookMessages", "keyExpiries",
] as const;

/**
 * The same counter store, timing every call into `keyward_store_*{store="counters"}`. The wrapper inherits from the
 * store (anything beyond the port still works) and calls the store's method as it is at call time, so a method
 * patched later (tests' write watchers) is still the one that runs.
 */
export function instrumentCounters(counters: CounterStore, metrics: Metrics): CounterStore {
  return timed(counters, "counters", "", metrics);
}

/** The same document store, each sub-store's calls timed as `keys.findByHash`, `apis.insert`, ... */
export function instrumentDocuments(documents: DocumentStore, metrics: Metrics): DocumentStore {
  const wrapped = timed(documents, "documents", "", metrics);
  for (const part of DOCUMENT_PARTS) {
    (wrapped as unknown as Record<string, object>)[part] = timed(documents[part], "documents", `${part}.`, metrics);
  }
  return wrapped;
}

function timed<T extends object>(target: T, store: string, prefix: string, metrics: Metrics): T {
  const wrapped = Object.create(target) as Record<string, unknown>;
  for (const name of methodNames(target)) {
    const tally = metrics.storeTally(store, prefix + name);
    wrapped[name] = function timedCall(): unknown {
      const started = performance.now();
      let result: unknown;
      try {
        // `arguments` as they came, with no array made for them (a counter step is timed on every verification).
        result = (target as Record<string, (...a: unknown[]) => unknown>)[name].apply(target, arguments as never);
      } catch (error) {
        settle(tally, started, error);
        throw error;
      }
      if (!(result instanceof Promise)) {
        settle(tally, started, undefined);
        return result;
      }
      // Observed beside the caller rather than in its way: the caller awaits the store's own promise, one microtask
      // turn sooner than through a derived one, and this observer is registered first, so it still runs first.
      result.then(
        () => settle(tally, started, undefined),
        (error: unknown) => settle(tally, started, error),
      );
      return result;
    };
  }
  return wrapped as T;
}

/** A unique violation is an answer (409), not a store failure; anything else thrown is counted as an error. */
function settle(tally: StoreTally, started: number, error: unknown): void {
  tally.latency.observe((performance.now() - started) / 1000);
  if (error !== undefined && !(error instanceof UniqueViolationError)) tally.errors += 1;
}

/** Own and inherited methods (object literals and class instances alike), `close` included. */
function methodNames(target: object): string[] {
  const names = new Set<string>();
  for (let o: object | null = target; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) {
      if (name !== "constructor" && typeof (target as Record<string, unknown>)[name] === "function") names.add(name);
    }
  }
  return [...names];
}
