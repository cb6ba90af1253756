import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";

const T0 = Date.UTC(2030, 0, 1);
const body = (extra: Record<string, unknown> = {}) => ({ start: T0, end: T0 + 86_400_000, granularity: "day", ...extra });

describe("analytics.getVerifications permissions", () => {
  const harness = useKeyward();

  it("a root key without any read_analytics is 403 naming api.*.read_analytics", async () => {
    const { key } = await harness.seed.rootKeyWithout("api.*.read_analytics");
    const response = await harness.rest.v2("analytics.getVerifications", body(), key);
    expect(response.status).toBe(403);
    expect(response.body.error.detail).toBe("Missing permission: api.*.read_analytics");
  });

  it("read_analytics on one api does not cover a query of every api, nor of another api", async () => {
    const apiId = await harness.seed.api();
    const otherApiId = await harness.seed.api();
    const { key } = await harness.seed.rootKey([`api.${apiId}.read_analytics`]);
    const everything = await harness.rest.v2("analytics.getVerifications", body(), key);
    expect(everything.status).toBe(403);
    expect(everything.body.error.detail).toBe("Missing permission: api.*.read_analytics");
    const other = await harness.rest.v2("analytics.getVerifications", body({ apiIds: [apiId, otherApiId] }), key);
    expect(other.status).toBe(403);
    expect(other.body.error.detail).toBe(`Missing permission: api.*.read_analytics or api.${otherApiId}.read_analytics`);
    const allowed = await harness.rest.v2("analytics.getVerifications", body({ apiIds: [apiId] }), key);
    expect(allowed.status).toBe(200);
    expect(allowed.body.data).toEqual([]);
  });

  it("no root key is 401", async () => {
    const response = await harness.rest.v2("analytics.getVerifications", body());
    expect(response.status).toBe(401);
  });
});
