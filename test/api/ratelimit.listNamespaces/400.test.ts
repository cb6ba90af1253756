import { describe } from "vitest";
import { searchableListCases } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.listNamespaces", () => {
  searchableListCases(useKeyward(), "ratelimit.listNamespaces", { field: "namespace", value: "email" });
});
