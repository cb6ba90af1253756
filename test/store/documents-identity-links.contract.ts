import { expect, it } from "vitest";
import { UniqueViolationError } from "../../src/store/errors.js";
import type { DocumentStore } from "../../src/store/ports/documents.js";
import type { IdentityRecord, KeyRecord } from "../../src/store/ports/key-records.js";
import { skipNote } from "./documents-rbac.contract.js";

/**
 * Writes that change keys and identities together, each one atomic: a key replace that links a new identity, and an
 * identity delete that unlinks its keys. Part of runDocumentStoreContract; `gaps.rollback` as there.
 */
export function identityLinkContract(fresh: () => Promise<DocumentStore>, gaps: { rollback?: string } = {}): void {
  it("a key replace with a new identity stores both: the key links to it at revision + 1", async () => {
    const store = await fresh();
    await store.keys.insert(key(1));
    const read = (await store.keys.get("ws_a", "key_0001"))!;
    expect(await store.keys.replace({ ...read, identityId: "id_0001" }, { newIdentity: identity(1, "user_1") })).toBe(true);
    expect(await store.identities.findByExternalId("ws_a", "user_1")).toEqual(identity(1, "user_1"));
    expect(await store.keys.get("ws_a", "key_0001")).toEqual({ ...read, identityId: "id_0001", revision: 1 });
  });

  it("a key replace with a new identity that loses its compare-and-swap stores neither", async () => {
    const store = await fresh();
    await store.keys.insert(key(1));
    const read = (await store.keys.get("ws_a", "key_0001"))!;
    expect(await store.keys.replace({ ...read, name: "first" })).toBe(true);
    expect(await store.keys.replace({ ...read, identityId: "id_0002" }, { newIdentity: identity(2, "user_2") })).toBe(false);
    expect(await store.identities.get("ws_a", "id_0002")).toBeUndefined();
    expect(await store.identities.findByExternalId("ws_a", "user_2")).toBeUndefined();
    expect(await store.identities.count("ws_a")).toBe(0);
    expect(await store.keys.get("ws_a", "key_0001")).toEqual({ ...read, name: "first", revision: 1 });
  });

  it("concurrent key replaces from one read, each with its own new identity: one wins, and only its identity exists", async () => {
    const store = await fresh();
    await store.keys.insert(key(1));
    const read = (await store.keys.get("ws_a", "key_0001"))!;
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) =>
      store.keys.replace({ ...read, identityId: `id_${pad(n)}` }, { newIdentity: identity(n, `user_${n}`) })));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true) + 1;
    expect(await store.identities.list("ws_a", { limit: 10 })).toEqual([identity(winner, `user_${winner}`)]);
    expect((await store.keys.get("ws_a", "key_0001"))?.identityId).toBe(`id_${pad(winner)}`);
  });

  it.skipIf(gaps.rollback !== undefined)(`a key replace whose new identity's external id is taken is refused with UniqueViolationError, the key unchanged${skipNote(gaps.rollback)}`, async () => {
    const store = await fresh();
    await store.identities.insert(identity(1, "user_1"));
    await store.keys.insert(key(1));
    const read = (await store.keys.get("ws_a", "key_0001"))!;
    const error = await store.keys.replace({ ...read, identityId: "id_0002" }, { newIdentity: identity(2, "user_1") }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UniqueViolationError);
    expect(error).toMatchObject({ collection: "identities", index: "workspaceId,externalId" });
    expect(await store.keys.get("ws_a", "key_0001")).toEqual(read);
    expect(await store.identities.get("ws_a", "id_0002")).toBeUndefined();
  });

  it("deleting an identity unlinks its live keys in the same write and returns them as they were; a second delete answers false", async () => {
    const store = await fresh();
    await store.identities.insert(identity(1, "user_1"));
    await store.identities.insert(identity(2, "user_2"));
    await store.keys.insert(key(1, { identityId: "id_0001", credits: {} }));
    await store.keys.insert(key(2, { identityId: "id_0001", revision: 4 }));
    await store.keys.insert(key(3, { identityId: "id_0001" }));
    await store.keys.markDeleted("ws_a", "key_0003", T + 5);
    await store.keys.insert(key(4, { identityId: "id_0002" }));
    await store.keys.insert({ ...key(5, { identityId: "id_0001" }), workspaceId: "ws_b" });
    const before = [(await store.keys.get("ws_a", "key_0001"))!, (await store.keys.get("ws_a", "key_0002"))!];

    const unlinked = await store.identities.markDeleted("ws_a", "id_0001", T + 9);
    expect(unlinked && [...unlinked].sort((a, b) => a.id.localeCompare(b.id))).toEqual(before);
    expect(await store.identities.get("ws_a", "id_0001")).toBeUndefined();
    const { identityId: _one, ...first } = before[0];
    const { identityId: _two, ...second } = before[1];
    expect(await store.keys.get("ws_a", "key_0001")).toEqual({ ...first, updatedAt: T + 9, revision: 1 });
    expect(await store.keys.get("ws_a", "key_0002")).toEqual({ ...second, updatedAt: T + 9, revision: 5 });
    expect(await store.keys.listByIdentity("ws_a", "id_0001", { limit: 10 })).toEqual([]);
    // A replace that read the link before the delete cannot write it back.
    expect(await store.keys.replace({ ...before[0], name: "stale" })).toBe(false);
    // Other identities' keys and other workspaces' keys keep their links.
    expect((await store.keys.get("ws_a", "key_0004"))?.identityId).toBe("id_0002");
    expect((await store.keys.get("ws_b", "key_0005"))?.identityId).toBe("id_0001");

    expect(await store.identities.markDeleted("ws_a", "id_0001", T + 10)).toBe(false);
    expect((await store.keys.get("ws_a", "key_0001"))?.revision).toBe(1);
  });

  it("concurrent deletes of one identity: exactly one gets its keys, the others answer false", async () => {
    const store = await fresh();
    await store.identities.insert(identity(1, "user_1"));
    await store.keys.insert(key(1, { identityId: "id_0001" }));
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => store.identities.markDeleted("ws_a", "id_0001", T + n)));
    expect(results.filter((r) => r !== false)).toEqual([[key(1, { identityId: "id_0001" })]]);
    expect(await store.keys.get("ws_a", "key_0001")).toMatchObject({ revision: 1 });
    expect((await store.keys.get("ws_a", "key_0001"))?.identityId).toBeUndefined();
  });
}

const T = 1_700_000_000_000;
const pad = (n: number) => String(n).padStart(4, "0");

function key(n: number, extra: Partial<KeyRecord> = {}): KeyRecord {
  return {
    id: `key_${pad(n)}`, workspaceId: "ws_a", apiId: "api_0001", hash: `khash_${pad(n)}`, start: `sk_${pad(n)}`, createdAt: T + n,
    enabled: true, ratelimits: [], permissions: [], roles: [], ...extra,
  };
}

function identity(n: number, externalId: string): IdentityRecord {
  return { id: `id_${pad(n)}`, workspaceId: "ws_a", externalId, ratelimits: [], createdAt: T + n };
}
