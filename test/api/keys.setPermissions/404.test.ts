import { describe } from "vitest";
import { keyAssignmentNotFoundCases } from "../../support/key-assignment-cases.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.setPermissions", () => {
  const harness = useKeyward();
  keyAssignmentNotFoundCases(harness, "keys.setPermissions");
});
