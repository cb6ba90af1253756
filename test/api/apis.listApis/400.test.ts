import { describe } from "vitest";
import { searchableListCases } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("apis.listApis", () => {
  searchableListCases(useKeyward(), "apis.listApis", { field: "apiId", value: "api_123456789" });
});
