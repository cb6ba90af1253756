import { describe } from "vitest";
import { pagedListCases } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.listApis", () => {
  pagedListCases(useKeyward(), "apis.listApis", { unknown: { field: "apiId", value: "api_123456789" }, search: true });
});
