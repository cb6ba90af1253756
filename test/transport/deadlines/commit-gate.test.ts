import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DeadlineExceededError } from "../../../src/services/context.js";
import { COUNTER_WRITES, gatedCounters } from "../../../src/services/gated-counters.js";
import { AUDITED_WRITES, auditedDocuments } from "../../../src/store/audit/audited-documents.js";
import { createEmbeddedCounterStore } from "../../../src/store/embedded/counters.js";
import { createEmbeddedDocumentStore } from "../../../src/store/embedded/documents.js";
import type { DocumentStore } from "../../../src/store/ports/documents.js";
import { CallDeadline } from "../../../src/transport/call-deadline.js";

/** CounterStore methods that change no counter (a refill `readCredits` stores is what any reader would compute; `recall` only reads). */
const COUNTER_READS = new Set(["readCredits", "recall", "ping", "close", "stats"]);

const refusing = { beginCommit: () => { throw new DeadlineExceededError("refused"); } };

/** Arguments each audited write's resource list can be read from; the gate refuses before the store sees them. */
function argsFor(store: string, method: string): unknown[] {
  if (store === "permissions" && method === "insert") return [[{ id: "perm_1" }]];
  if (store === "keys" && method === "insertMany") return [[{ id: "key_1", apiId: "api_1" }]];
  return [{ id: "x_1", namespaceId: "rlns_1" }, "x_1", "identifier"];
}

describe("the commit gate of a call", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), "keyward-gate-"));
    dirs.push(dir);
    return dir;
  };

  it("guards every write of the audited documents view: a refused write never reaches the store", async () => {
    const documents: DocumentStore = await createEmbeddedDocumentStore({ dir: await tempDir() });
    const reached: string[] = [];
    const writes = [...Object.entries(AUDITED_WRITES).flatMap(([store, methods]) => Object.keys(methods).map((method) => [store, method])), ["", "createWorkspace"]];
    for (const [store, method] of writes) {
      const target = (store ? documents[store as keyof DocumentStore] : documents) as unknown as Record<string, unknown>;
      target[method] = async () => void reached.push(`${store}.${method}`);
    }
    const view = auditedDocuments(documents, documents.auditLogs!, {
      workspaceId: "ws_A", actor: "key_root", action: "test", newRecord: () => ({ id: "log_1", time: 1 }), gate: refusing,
    }).documents;
    const refused: string[] = [];
    for (const [store, method] of writes) {
      const target = (store ? view[store as keyof DocumentStore] : view) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      const args = store ? argsFor(store, method) : [{ id: "ws_1" }, { id: "root_1" }];
      await target[method](...args).catch((error: unknown) => {
        if (error instanceof DeadlineExceededError) refused.push(`${store}.${method}`);
      });
    }
    expect(refused).toEqual(writes.map(([store, method]) => `${store}.${method}`));
    expect(refused.length).toBeGreaterThan(15);
    expect(reached).toEqual([]);
    expect(await documents.auditLogs!.list({ workspaceId: "ws_A" }, { limit: 10 })).toEqual([]);
    await documents.close();
  });

  it("guards every counter write: COUNTER_WRITES names every method of the port that is not a read", async () => {
    const counters = await createEmbeddedCounterStore({ dir: await tempDir() });
    const methods = Object.keys(counters).filter((name) => typeof (counters as unknown as Record<string, unknown>)[name] === "function");
    expect(methods.filter((name) => !COUNTER_READS.has(name)).sort()).toEqual([...COUNTER_WRITES].sort());
    await counters.setCredits("key_1", "key_1", 5, 1);
    const gated = gatedCounters(counters, refusing);
    const refused = await Promise.all([
      gated.setCredits("key_1", "key_1", 9, 2),
      gated.adjustCredits("key_1", "key_1", { operation: "decrement", value: 1, now: 2 }),
      gated.deleteCredits("key_1", "key_1"),
      gated.consume({ tag: "key_1", now: 2, limits: [], credits: { keyId: "key_1", cost: 1 } }),
    ].map((write) => write.then(() => "written", (error: unknown) => error instanceof DeadlineExceededError)));
    expect(refused).toEqual([true, true, true, true]);
    expect(await gated.readCredits("key_1", "key_1")).toBe(5);
    await counters.close();
  });

  it("a deadline already passed refuses the call; grpc-timeout 1n counts as passed on any clock", () => {
    for (const ms of [0, 0.000001, 0.999]) {
      expect(() => new CallDeadline(ms).refuseIfPassed(), `${ms} ms`).toThrow(DeadlineExceededError);
    }
    expect(() => new CallDeadline(60_000).refuseIfPassed()).not.toThrow();
  });

  it("answered as expired, a call may not commit; committing, it may not be answered as expired", () => {
    const expired = new CallDeadline(60_000);
    expect(expired.expire()).toBe(true);
    expect(() => expired.beginCommit()).toThrow(DeadlineExceededError);

    const committing = new CallDeadline(60_000);
    committing.beginCommit();
    expect(committing.expire()).toBe(false);
    expect(() => committing.beginCommit()).not.toThrow();

    const late = new CallDeadline(0);
    expect(() => late.beginCommit()).toThrow(DeadlineExceededError);
    expect(late.expire()).toBe(true);
  });
});
