import { expect, it } from "vitest";
import { UniqueViolationError } from "../../src/store/errors.js";
import type { DashboardSessionRecord } from "../../src/store/ports/dashboard-sessions.js";
import type { DocumentStore } from "../../src/store/ports/documents.js";

const T = 1_700_000_000_000;

function session(n: number, overrides: Partial<DashboardSessionRecord> = {}): DashboardSessionRecord {
  return {
    id: `sess_${String(n).padStart(4, "0")}`,
    hash: `session-hash-${n}`,
    workspaceId: "ws_a",
    rootKeyId: "key_root",
    rootKeyHash: "root-key-hash",
    createdAt: T + n,
    expiresAt: T + 3_600_000 + n,
    ...overrides,
  };
}

/** The DashboardSessionStore part of the document contract; runDocumentStoreContract calls it with its `fresh()`. */
export function dashboardSessionsContract(fresh: () => Promise<DocumentStore>): void {
  it("a dashboard session is found by its token hash until deleted; a hash names one session", async () => {
    const store = await fresh();
    await store.dashboardSessions.insert(session(1));
    expect(await store.dashboardSessions.findByHash("session-hash-1")).toEqual(session(1));
    expect(await store.dashboardSessions.findByHash("session-hash-2")).toBeUndefined();
    await expect(store.dashboardSessions.insert(session(2, { hash: "session-hash-1" }))).rejects.toBeInstanceOf(UniqueViolationError);
    expect(await store.dashboardSessions.delete("session-hash-1")).toBe(true);
    expect(await store.dashboardSessions.delete("session-hash-1")).toBe(false);
    expect(await store.dashboardSessions.findByHash("session-hash-1")).toBeUndefined();
  });

  it("deleteExpired removes exactly the sessions expired at that instant", async () => {
    const store = await fresh();
    await store.dashboardSessions.insert(session(1, { expiresAt: T + 10 }));
    await store.dashboardSessions.insert(session(2, { expiresAt: T + 20 }));
    await store.dashboardSessions.insert(session(3, { expiresAt: T + 30 }));
    expect(await store.dashboardSessions.deleteExpired(T + 20)).toBe(2);
    expect(await store.dashboardSessions.findByHash("session-hash-1")).toBeUndefined();
    expect(await store.dashboardSessions.findByHash("session-hash-2")).toBeUndefined();
    expect(await store.dashboardSessions.findByHash("session-hash-3")).toEqual(session(3, { expiresAt: T + 30 }));
    expect(await store.dashboardSessions.deleteExpired(T + 20)).toBe(0);
  });
}
