import { beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../../support/keyward.js";
import { useTwoInstances } from "../../support/second-instance.js";
import { keyAdmin, verifyClient, type KeyAdmin, type VerifyClient } from "../../support/verify-key.js";

describe("keys.verifyKey cache across instances through Redis", () => {
  // A frozen clock: the cache's TTL never expires an entry here, so only invalidation can.
  const clock = manualClock(Date.UTC(2030, 0, 1));
  const pair = useTwoInstances(clock);
  let adminA: KeyAdmin;
  let verifyB: VerifyClient;
  beforeAll(() => {
    adminA = keyAdmin(pair.a.baseUrl, pair.a.rootKey);
    verifyB = verifyClient(pair.b.baseUrl, pair.a.rootKey);
  });

  /**
   * Verifies on B until it answers `code`. The bound only stops a test that would never pass; how fast the message
   * travels is the bench's business, not a test's.
   */
  async function eventuallyOnB(key: string, code: string, options: { permissions?: string } = {}): Promise<void> {
    const query = options.permissions === undefined ? undefined : { v1: options.permissions, v2: options.permissions };
    const started = Date.now();
    let last = "";
    while (Date.now() - started < 10_000) {
      last = (await verifyB.verify("v2", { key, permissions: query })).code;
      if (last === code) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`instance B still answered ${last}, not ${code}`);
  }

  /**
   * A key that B serves from its cache, shown by a name written straight to the store (which tells no instance) that
   * B does not see. B caches on a verification unless an invalidation arrives during that lookup, as the key's own
   * creation travelling from A may; then a later verification caches it.
   */
  async function keyCachedOnB() {
    const apiId = await adminA.api();
    const { keyId, key } = await adminA.key(apiId, { name: "shared" });
    for (let attempt = 1; attempt <= 20; attempt++) {
      const served = (await verifyB.verify("v2", { key })).payload.name;
      const record = await pair.a.documents.keys.get(pair.a.workspaceId, keyId);
      const storedName = `written-directly-${attempt}`;
      expect(await pair.a.documents.keys.replace({ ...record!, name: storedName })).toBe(true);
      if ((await verifyB.verify("v2", { key })).payload.name === served) return { apiId, keyId, key, storedName };
    }
    throw new Error("instance B never served the key from its cache");
  }

  it("a key disabled on A answers DISABLED on B once told through Redis", async () => {
    const { keyId, key, storedName } = await keyCachedOnB();
    await adminA.update({ keyId, enabled: false });
    await eventuallyOnB(key, "DISABLED");
    expect((await verifyB.verify("v2", { key })).payload.name).toBe(storedName);
    await adminA.update({ keyId, enabled: true });
    await eventuallyOnB(key, "VALID");
  });

  it("a key deleted on A answers NOT_FOUND on B once told through Redis", async () => {
    const { keyId, key } = await keyCachedOnB();
    await adminA.ok("keys.deleteKey", { keyId });
    await eventuallyOnB(key, "NOT_FOUND");
  });

  it("a key whose api is deleted on A answers NOT_FOUND on B once told through Redis", async () => {
    const { apiId, key } = await keyCachedOnB();
    await adminA.ok("apis.deleteApi", { apiId });
    await eventuallyOnB(key, "NOT_FOUND");
  });

  it("a key expired on A answers EXPIRED on B once told through Redis, and credits set on A hold on B at once", async () => {
    const { keyId, key } = await keyCachedOnB();
    await adminA.update({ keyId, credits: { remaining: 1 } });
    await eventuallyOnB(key, "VALID");
    await adminA.ok("keys.updateCredits", { keyId, operation: "set", value: 0 });
    expect((await verifyB.verify("v2", { key })).code).toBe("USAGE_EXCEEDED");
    await adminA.update({ keyId, expires: clock.now() });
    await eventuallyOnB(key, "EXPIRED");
  });

  it("a role losing a permission on A, or deleted there, is seen by B's verifications once told through Redis", async () => {
    await adminA.ok("permissions.createRole", { name: "shared-role", permissions: ["shared.read"] });
    const apiId = await adminA.api();
    const { key } = await adminA.key(apiId, { roles: ["shared-role"] });
    const query = { permissions: "shared.read" };
    expect((await verifyB.verify("v2", { key, permissions: { v1: "shared.read", v2: "shared.read" } })).code).toBe("VALID");
    await adminA.ok("permissions.setRolePermissions", { roleId: "shared-role", permissions: [] });
    await eventuallyOnB(key, "INSUFFICIENT_PERMISSIONS", query);
    await adminA.ok("permissions.setRolePermissions", { roleId: "shared-role", permissions: ["shared.read"] });
    await eventuallyOnB(key, "VALID", query);
    await adminA.ok("permissions.deleteRole", { role: "shared-role" });
    await eventuallyOnB(key, "INSUFFICIENT_PERMISSIONS", query);
  });
});
