import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { manualClock, startKeyward, type RunningKeyward } from "../../support/keyward.js";
import { startSecondInstance, type SecondInstance } from "../../support/second-instance.js";
import { keyAdmin, verifyClient, type KeyAdmin, type VerifyClient } from "../../support/verify-key.js";

describe("keys.verifyKey cache across instances through Redis", () => {
  // A frozen clock: the cache's TTL never expires an entry here, so only invalidation can.
  const clock = manualClock(Date.UTC(2030, 0, 1));
  let a: RunningKeyward;
  let b: SecondInstance;
  let adminA: KeyAdmin;
  let verifyB: VerifyClient;
  beforeAll(async () => {
    a = await startKeyward({ clock, redisUrl: inject("redisUrl") });
    b = await startSecondInstance(a, { redisUrl: inject("redisUrl"), clock });
    adminA = keyAdmin(a.baseUrl, a.rootKey);
    verifyB = verifyClient(b.baseUrl, a.rootKey);
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  /** Verifies on B until it answers `code`, for at most `withinMs` of real time; returns how long it took. */
  async function eventuallyOnB(key: string, code: string, withinMs = 1000): Promise<number> {
    const started = Date.now();
    let last = "";
    while (Date.now() - started < withinMs) {
      last = (await verifyB.verify("v2", { key })).code;
      if (last === code) return Date.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`instance B still answered ${last}, not ${code}, after ${withinMs} ms`);
  }

  /** A key that B has verified (so B caches it), and proof that B serves it from that cache. */
  async function keyCachedOnB() {
    const apiId = await adminA.api();
    const { keyId, key } = await adminA.key(apiId, { name: "shared" });
    expect((await verifyB.verify("v2", { key })).code).toBe("VALID");
    const record = await a.documents.keys.get(a.workspaceId, keyId);
    expect(await a.documents.keys.replace({ ...record!, name: "written-directly" })).toBe(true);
    expect((await verifyB.verify("v2", { key })).payload.name).toBe("shared");
    return { apiId, keyId, key };
  }

  it("a key disabled on A answers DISABLED on B within 1 s", async () => {
    const { keyId, key } = await keyCachedOnB();
    await adminA.update({ keyId, enabled: false });
    expect(await eventuallyOnB(key, "DISABLED")).toBeLessThan(1000);
    expect((await verifyB.verify("v2", { key })).payload.name).toBe("written-directly");
    await adminA.update({ keyId, enabled: true });
    await eventuallyOnB(key, "VALID");
  });

  it("a key deleted on A answers NOT_FOUND on B within 1 s", async () => {
    const { keyId, key } = await keyCachedOnB();
    await adminA.ok("keys.deleteKey", { keyId });
    await eventuallyOnB(key, "NOT_FOUND");
  });

  it("a key whose api is deleted on A answers NOT_FOUND on B within 1 s", async () => {
    const { apiId, key } = await keyCachedOnB();
    await adminA.ok("apis.deleteApi", { apiId });
    await eventuallyOnB(key, "NOT_FOUND");
  });

  it("a key expired on A answers EXPIRED on B within 1 s, and credits set on A hold on B at once", async () => {
    const { keyId, key } = await keyCachedOnB();
    await adminA.update({ keyId, credits: { remaining: 1 } });
    await eventuallyOnB(key, "VALID");
    await adminA.ok("keys.updateCredits", { keyId, operation: "set", value: 0 });
    expect((await verifyB.verify("v2", { key })).code).toBe("USAGE_EXCEEDED");
    await adminA.update({ keyId, expires: clock.now() });
    await eventuallyOnB(key, "EXPIRED");
  });

  it("a role losing a permission on A, or deleted there, is seen by B's verifications within 1 s", async () => {
    await adminA.ok("permissions.createRole", { name: "shared-role", permissions: ["shared.read"] });
    const apiId = await adminA.api();
    const { key } = await adminA.key(apiId, { roles: ["shared-role"] });
    const codeOnB = async () => (await verifyB.verify("v2", { key, permissions: { v1: "shared.read", v2: "shared.read" } })).code;
    expect(await codeOnB()).toBe("VALID");
    const waitFor = async (code: string) => {
      const started = Date.now();
      while ((await codeOnB()) !== code) {
        if (Date.now() - started > 1000) throw new Error(`B still answers the old code, not ${code}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await adminA.ok("permissions.setRolePermissions", { roleId: "shared-role", permissions: [] });
    await waitFor("INSUFFICIENT_PERMISSIONS");
    await adminA.ok("permissions.setRolePermissions", { roleId: "shared-role", permissions: ["shared.read"] });
    await waitFor("VALID");
    await adminA.ok("permissions.deleteRole", { role: "shared-role" });
    await waitFor("INSUFFICIENT_PERMISSIONS");
  });
});
