import { describe, expect, it } from "vitest";
import { KeywardError } from "../../src/domain/errors.js";
import type { KeyRecord } from "../../src/store/ports/key-records.js";
import { rebaseKey, updateKeyWithRetry } from "../../src/services/keys/update-key-with-retry.js";

const base: KeyRecord = {
  id: "key_1", workspaceId: "ws_1", apiId: "api_1", hash: "h", start: "s", createdAt: 1, enabled: true, ratelimits: [], permissions: [], roles: [],
};

/** A key store of one key whose `replace` is a compare-and-swap; `interfere` runs before each replace (a rival write). */
function oneKey(options: { interfere?: (stored: KeyRecord) => KeyRecord | undefined } = {}) {
  let stored: KeyRecord | undefined = { ...base };
  const invalidated: string[] = [];
  const deps = {
    documents: {
      keys: {
        get: async () => (stored ? { ...stored } : undefined),
        replace: async (record: KeyRecord) => {
          if (stored && options.interfere) stored = options.interfere(stored);
          if (!stored || (stored.revision ?? 0) !== (record.revision ?? 0)) return false;
          stored = { ...record, revision: (record.revision ?? 0) + 1 };
          return true;
        },
      },
    },
    cache: { invalidate: (message: { kind: string; hash?: string }) => void invalidated.push(message.hash ?? "") },
  } as unknown as Parameters<typeof updateKeyWithRetry>[0];
  return { deps, invalidated, stored: () => stored };
}

describe("updateKeyWithRetry", () => {
  it("re-reads and re-applies the change after a rival write, keeping both; the cache forgets the key once", async () => {
    let rivals = 2;
    const store = oneKey({
      interfere: (s) => (rivals-- > 0 ? { ...s, roles: [...s.roles, `rival${rivals}`], revision: (s.revision ?? 0) + 1 } : s),
    });
    let calls = 0;
    const update = await updateKeyWithRetry(store.deps, "ws_1", "key_1", (current) => (calls++, { ...current, roles: [...current.roles, "mine"] }));
    expect(calls).toBe(3);
    expect(store.stored()).toMatchObject({ roles: ["rival1", "rival0", "mine"], revision: 3 });
    expect(update?.after).toEqual(store.stored());
    expect(store.invalidated).toEqual(["h"]);
  });

  it("resolves undefined for a gone key, and writes nothing when the change returns undefined", async () => {
    const gone = oneKey({ interfere: () => undefined });
    expect(await updateKeyWithRetry(gone.deps, "ws_1", "key_1", (k) => ({ ...k, name: "x" }))).toBeUndefined();
    const idle = oneKey();
    const update = await updateKeyWithRetry(idle.deps, "ws_1", "key_1", () => undefined);
    expect(update?.after).toEqual(base);
    expect(idle.invalidated).toEqual([]);
  });

  it("gives up, aborted (the caller may retry), when it loses every attempt", async () => {
    const store = oneKey({ interfere: (s) => ({ ...s, revision: (s.revision ?? 0) + 1 }) });
    const error = await updateKeyWithRetry(store.deps, "ws_1", "key_1", (k) => ({ ...k, name: "x" })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeywardError);
    expect((error as KeywardError).kind).toBe("aborted");
    expect(store.stored()?.name).toBeUndefined();
  });
});

describe("rebaseKey", () => {
  it("carries the fields an update set or removed onto a newer read, and keeps the newer read's other fields", () => {
    const read: KeyRecord = { ...base, name: "old", meta: { a: 1 }, revision: 1 };
    const next: KeyRecord = { ...read, name: "new", revision: 1 };
    delete next.meta;
    const current: KeyRecord = { ...read, roles: ["added"], meta: { a: 1 }, revision: 2 };
    expect(rebaseKey(current, read, next)).toEqual({ ...base, name: "new", roles: ["added"], revision: 2 });
    expect(rebaseKey(read, read, next)).toBe(next);
  });
});
