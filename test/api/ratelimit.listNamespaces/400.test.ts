import { describe } from "vitest";
import { pagedListCases } from "../../support/bad-input.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("ratelimit.listNamespaces", () => {
  pagedListCases(useKeyward(), "ratelimit.listNamespaces", { unknown: { field: "namespace", value: "email" }, search: true });
});
