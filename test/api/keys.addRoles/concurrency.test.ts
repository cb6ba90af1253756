import { describe, expect, it } from "vitest";
import { seedKey, uniqueName, v2Ok } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

const N = 20;

describe("keys.addRoles and keys.addPermissions, concurrently on one key", () => {
  const harness = useKeyward();
  const sorted = (names: string[]) => [...names].sort();

  async function assignAtOnce(op: "keys.addRoles" | "keys.addPermissions", field: "roles" | "permissions", keyId: string, names: string[]) {
    const responses = await Promise.all(names.map((name) => harness.rest.v2(op, { keyId, [field]: [name] }, harness.keyward.rootKey)));
    expect(responses.map((r) => r.status)).toEqual(names.map(() => 200));
  }

  it(`${N} concurrent addRoles, each of another role (created on first use), leave the key with all ${N}`, async () => {
    const { keyId } = await seedKey(harness);
    const roles = Array.from({ length: N }, () => uniqueName("role"));
    await assignAtOnce("keys.addRoles", "roles", keyId, roles);
    const { roles: got } = await v2Ok(harness, "keys.getKey", { keyId });
    expect(sorted(got)).toEqual(sorted(roles));
    expect(sorted((await harness.keyward.documents.keys.get(harness.keyward.workspaceId, keyId))!.roles)).toEqual(sorted(roles));
  });

  it(`${N} concurrent addPermissions, each of another permission (created on first use), leave the key with all ${N}`, async () => {
    const { keyId } = await seedKey(harness);
    const permissions = Array.from({ length: N }, () => uniqueName("perm"));
    await assignAtOnce("keys.addPermissions", "permissions", keyId, permissions);
    const { permissions: got } = await v2Ok(harness, "keys.getKey", { keyId });
    expect(sorted(got)).toEqual(sorted(permissions));
    expect(sorted((await harness.keyward.documents.keys.get(harness.keyward.workspaceId, keyId))!.permissions)).toEqual(sorted(permissions));
  });

  it("an updateKey racing addRoles keeps both: the new name and every role", async () => {
    const { keyId } = await seedKey(harness);
    const roles = Array.from({ length: N }, () => uniqueName("role"));
    const [update] = await Promise.all([
      harness.rest.v2("keys.updateKey", { keyId, name: "renamed", meta: { plan: "pro" } }, harness.keyward.rootKey),
      assignAtOnce("keys.addRoles", "roles", keyId, roles),
    ]);
    expect(update.status).toBe(200);
    const key = await v2Ok(harness, "keys.getKey", { keyId });
    expect(key.name).toBe("renamed");
    expect(key.meta).toEqual({ plan: "pro" });
    expect(sorted(key.roles)).toEqual(sorted(roles));
  });
});
