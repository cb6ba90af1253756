import { describe, expect } from "vitest";
import { authMatrix } from "../../support/auth-matrix.js";
import { seedKey } from "../../support/rbac.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.removePermissions", () => {
  const harness = useKeyward();
  authMatrix(harness, "keys.removePermissions", {
    validInput: async (h) => ({ keyId: (await seedKey(h, { permissions: ["p.y"] })).keyId, permissions: ["p.y"] }),
    unchanged: async (h, input) => expect((await h.keyward.documents.keys.get(h.keyward.workspaceId, input.keyId as string))?.permissions).toEqual(["p.y"]),
    badInputs: { rest: ["{not json", { keyId: "" }], rpc: [{ keyId: "" }] },
  });
});
