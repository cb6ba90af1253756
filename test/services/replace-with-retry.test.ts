import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KeywardError } from "../../src/domain/errors.js";
import { replaceWithRetry } from "../../src/services/replace-with-retry.js";
import { createEmbeddedDocumentStore } from "../../src/store/embedded/documents.js";
import type { DocumentStore } from "../../src/store/ports/documents.js";
import type { RoleRecord } from "../../src/store/ports/rbac.js";

const admin: RoleRecord = { id: "role_1", workspaceId: "ws_1", name: "admin", permissions: [], createdAt: 1 };

describe("replaceWithRetry (on the embedded store's compare-and-swap)", () => {
  let dir: string;
  let store: DocumentStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "keyward-replace-"));
    store = await createEmbeddedDocumentStore({ dir });
    await store.roles.insert(admin);
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const retrying = (change: (current: RoleRecord) => Promise<RoleRecord>) => replaceWithRetry({
    read: admin,
    reload: () => store.roles.get("ws_1", "role_1"),
    change,
    replace: (record) => store.roles.replace(record),
    subject: "The role role_1",
  });

  it("a rival write between read and replace makes it read again and apply the change on top: both land", async () => {
    let rivals = 2;
    let calls = 0;
    const written = await retrying(async (current) => {
      calls++;
      // A rival writer commits while this change is being computed.
      if (rivals-- > 0) await store.roles.replace({ ...(await store.roles.get("ws_1", "role_1"))!, permissions: [...current.permissions, `rival${rivals}`] });
      return { ...current, description: "mine" };
    });
    expect(calls).toBe(3);
    const stored = await store.roles.get("ws_1", "role_1");
    expect(stored).toEqual({ ...admin, permissions: ["rival1", "rival0"], description: "mine", revision: 3 });
    expect(written).toEqual(stored);
  });

  it("resolves undefined when the record is gone, and answers aborted (retry) when it keeps losing", async () => {
    await expect(retrying(async (current) => {
      await store.roles.delete("ws_1", "role_1");
      return current;
    })).resolves.toBeUndefined();

    await store.roles.insert(admin);
    const error = await retrying(async (current) => {
      await store.roles.replace((await store.roles.get("ws_1", "role_1"))!);
      return current;
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeywardError);
    expect(error).toMatchObject({ kind: "aborted", message: "The role role_1 is being changed concurrently; retry the request." });
  });
});
