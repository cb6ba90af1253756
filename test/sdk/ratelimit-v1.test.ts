import { Unkey } from "unkey-v1";
import { describe, expect, it } from "vitest";
import { useKeyward } from "../support/use-keyward.js";
import { REQUEST_ID } from "../support/vias.js";

const MINUTE = 60_000;

describe("@unkey/api 0.38 (v1 SDK) rate limits against Keyward", () => {
  const harness = useKeyward();
  const sdk = (rootKey = harness.keyward.rootKey) =>
    new Unkey({ rootKey, baseUrl: harness.keyward.baseUrl, retry: { attempts: 0 }, disableTelemetry: true });
  const reset = () => Math.floor(harness.clock.now() / MINUTE) * MINUTE + MINUTE;

  it("ratelimits.limit, setOverride, getOverride, listOverrides and deleteOverride drive an override end to end", async () => {
    const unkey = sdk();
    expect(await unkey.ratelimits.limit({ namespace: "sdk.v1", identifier: "user_1", limit: 2, duration: MINUTE, async: false }))
      .toEqual({ result: { limit: 2, remaining: 1, reset: reset(), success: true } });
    expect(await unkey.ratelimits.limit({ identifier: "user_1", limit: 1, duration: MINUTE, cost: 0 }))
      .toEqual({ result: { limit: 1, remaining: 1, reset: reset(), success: true } });

    const set = await unkey.ratelimits.setOverride({ namespaceName: "sdk.v1", identifier: "user_*", limit: 7, duration: MINUTE });
    expect(set).toEqual({ result: { overrideId: expect.stringMatching(/^rlor_/) } });
    const overrideId = set.result!.overrideId;
    const namespaceId = (await harness.keyward.documents.ratelimitNamespaces.findByName(harness.keyward.workspaceId, "sdk.v1"))!.id;

    expect(await unkey.ratelimits.getOverride({ namespaceId, identifier: "user_*" }))
      .toEqual({ result: { id: overrideId, identifier: "user_*", limit: 7, duration: MINUTE } });
    expect(await unkey.ratelimits.limit({ namespace: "sdk.v1", identifier: "user_1", limit: 2, duration: MINUTE }))
      .toEqual({ result: { limit: 7, remaining: 5, reset: reset(), success: true } });
    expect(await unkey.ratelimits.listOverrides({ namespaceName: "sdk.v1" }))
      .toEqual({ result: { overrides: [{ id: overrideId, identifier: "user_*", limit: 7, duration: MINUTE }], total: 1 } });

    expect(await unkey.ratelimits.deleteOverride({ namespaceId, identifier: "user_*" })).toEqual({ result: {} });
    expect(await unkey.ratelimits.listOverrides({ namespaceId })).toEqual({ result: { overrides: [], total: 0 } });
  });

  it("hands back v1 error bodies: 400 for bad input, 404 for an unknown namespace, 403 naming the permission", async () => {
    const unkey = sdk();
    const bad = await unkey.ratelimits.limit({ namespace: "sdk.v1", identifier: "", limit: 1, duration: MINUTE });
    expect(bad.error).toMatchObject({ code: "BAD_REQUEST", requestId: expect.stringMatching(REQUEST_ID) });
    const missing = await unkey.ratelimits.getOverride({ namespaceName: "sdk.none", identifier: "u" });
    expect(missing.error).toMatchObject({ code: "NOT_FOUND", message: expect.stringContaining("sdk.none") });
    const { key } = await harness.seed.rootKey(["ratelimit.*.limit"]);
    const forbidden = await sdk(key).ratelimits.setOverride({ namespaceName: "sdk.v1", identifier: "u", limit: 1, duration: MINUTE });
    expect(forbidden.error).toMatchObject({ code: "INSUFFICIENT_PERMISSIONS", message: expect.stringContaining("ratelimit.*.set_override") });
  });
});
