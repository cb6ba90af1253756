import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { seedKey } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.addPermissions", () => {
  const harness = useKeyward();
  authMatrix(harness, "keys.addPermissions", {
    validInput: async (h) => ({ keyId: (await seedKey(h)).keyId, permissions: ["p.x"] }),
    unchanged: async (h, input) => expect((await h.keyward.documents.keys.get(h.keyward.workspaceId, input.keyId as string))?.permissions).toEqual([]),
    badInputs: { rest: ["{not json", { keyId: "" }], rpc: [{ keyId: "" }] },
  });
});
