import { describe, expect, it } from "vitest";
import { deltas, scrape, series } from "../support/prometheus.js";
import { useKeyward } from "../support/use-keyward.js";

describe("GET /metrics: store failures", () => {
  const harness = useKeyward();

  it("counts a failed counter-store call as an error of that operation, and the 503 it caused; no outcome is counted", async () => {
    const { keyward, rest, seed } = harness;
    const apiId = await seed.api();
    const { key } = await seed.key(apiId, { credits: { remaining: 5 } });
    const before = await scrape(keyward.baseUrl);

    await keyward.stores.counters.close();
    const failed = await rest.v2("keys.verifyKey", { key }, keyward.rootKey);
    expect(failed.status).toBe(503);

    const after = await scrape(keyward.baseUrl);
    expect(deltas(before, after, "keyward_store_errors_total")).toEqual({
      [series("keyward_store_errors_total", { store: "counters", operation: "consume" })]: 1,
    });
    expect(deltas(before, after, "keyward_requests_total")).toEqual({
      [series("keyward_requests_total", { transport: "rest-v2", route: "KeysService.VerifyKey", status: "503" })]: 1,
    });
    expect(deltas(before, after, "keyward_verifications_total")).toEqual({});
  });
});
