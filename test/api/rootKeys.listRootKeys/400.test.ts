import { describe } from "vitest";
import { pagedListCases } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("rootKeys.listRootKeys", () => {
  pagedListCases(useKeyward(), "rootKeys.listRootKeys", { unknown: { field: "offset", value: 10 } });
});
