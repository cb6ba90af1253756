import { expect, it } from "vitest";
import type { DocumentStore } from "../../src/store/ports/documents.js";
import type { IdentityRecord } from "../../src/store/ports/key-records.js";

/**
 * IdentityStore.search and countMatching, part of the document contract: runDocumentStoreContract
 * (documents.contract.ts) calls it with its `fresh()` store.
 */
export function identitySearchContract(fresh: () => Promise<DocumentStore>): void {
  it("search finds live identities of the workspace by a piece of id or external id, ignoring case, paged by id", async () => {
    const store = await fresh();
    const externalIds = ["Acme.Admin", "acme-billing", "globex", "ACME_ops", "initech", "user(acme)+1"];
    for (const [i, externalId] of externalIds.entries()) await store.identities.insert(identity(i + 1, "ws_a", externalId));
    await store.identities.insert(identity(7, "ws_a", "acme_gone"));
    expect(await store.identities.markDeleted("ws_a", "id_0007", T + 9)).toEqual([]);
    await store.identities.insert(identity(8, "ws_b", "acme_elsewhere"));

    const found = async (text: string, page: { limit: number; after?: string } = { limit: 100 }) =>
      (await store.identities.search("ws_a", text, page)).map((i) => i.externalId);
    expect(await found("acme")).toEqual(["Acme.Admin", "acme-billing", "ACME_ops", "user(acme)+1"]);
    expect(await found("ACME", { limit: 2 })).toEqual(["Acme.Admin", "acme-billing"]);
    expect(await found("acme", { limit: 2, after: "id_0002" })).toEqual(["ACME_ops", "user(acme)+1"]);
    // Matched literally: regex characters are not patterns.
    expect(await found("(acme)+")).toEqual(["user(acme)+1"]);
    expect(await found(".")).toEqual(["Acme.Admin"]);
    // The id counts too.
    expect(await found("id_0005")).toEqual(["initech"]);
    expect(await found("nothing")).toEqual([]);
    expect(await store.identities.countMatching("ws_a", "acme")).toBe(4);
    expect(await store.identities.countMatching("ws_b", "acme")).toBe(1);
    expect(await store.identities.countMatching("ws_a", "zzz")).toBe(0);
    // Records come back whole.
    expect(await store.identities.search("ws_a", "globex", { limit: 1 })).toEqual([identity(3, "ws_a", "globex")]);
  });
}

const T = 1_700_000_000_000;

function identity(n: number, workspaceId: string, externalId: string): IdentityRecord {
  return { id: `id_${String(n).padStart(4, "0")}`, workspaceId, externalId, ratelimits: [], createdAt: T + n };
}
