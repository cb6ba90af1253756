import { Unkey } from "unkey-v2";
import { BadRequestErrorResponse, ForbiddenErrorResponse, NotFoundErrorResponse } from "unkey-v2/models/errors";
import { describe, expect, it } from "vitest";
import { useKeyward } from "../support/use-keyward.js";
import { REQUEST_ID } from "../support/vias.js";

const MINUTE = 60_000;
const meta = { requestId: expect.stringMatching(REQUEST_ID) };
const OVERRIDE_ID = expect.stringMatching(/^rlor_[1-9A-HJ-NP-Za-km-z]+$/);

async function thrown(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error("the call succeeded");
}

describe("@unkey/api 2.5 (v2 SDK) rate limits against Keyward", () => {
  const harness = useKeyward();
  const sdk = (rootKey = harness.keyward.rootKey) =>
    new Unkey({ rootKey, serverURL: harness.keyward.baseUrl, retryConfig: { strategy: "none" } });
  const reset = () => Math.floor(harness.clock.now() / MINUTE) * MINUTE + MINUTE;

  it("limit, multiLimit, setOverride, getOverride, listOverrides and deleteOverride parse and return the server's values", async () => {
    const unkey = sdk();
    expect(await unkey.ratelimit.limit({ namespace: "sdk.v2", identifier: "user_1", limit: 2, duration: MINUTE }))
      .toEqual({ meta, data: { limit: 2, remaining: 1, reset: reset(), success: true } });
    expect(await unkey.ratelimit.limit({ namespace: "sdk.v2", identifier: "user_1", limit: 2, duration: MINUTE, cost: 2 }))
      .toEqual({ meta, data: { limit: 2, remaining: 1, reset: reset(), success: false } });

    const set = await unkey.ratelimit.setOverride({ namespace: "sdk.v2", identifier: "user_*", limit: 10, duration: MINUTE });
    expect(set).toEqual({ meta, data: { overrideId: OVERRIDE_ID } });
    const { overrideId } = set.data;
    expect(await unkey.ratelimit.getOverride({ namespace: "sdk.v2", identifier: "user_*" }))
      .toEqual({ meta, data: { overrideId, identifier: "user_*", limit: 10, duration: MINUTE } });
    expect(await unkey.ratelimit.limit({ namespace: "sdk.v2", identifier: "user_1", limit: 2, duration: MINUTE }))
      .toEqual({ meta, data: { limit: 10, remaining: 8, reset: reset(), success: true, overrideId } });

    const multi = await unkey.ratelimit.multiLimit([
      { namespace: "sdk.v2", identifier: "user_2", limit: 1, duration: MINUTE },
      { namespace: "sdk.v2.other", identifier: "user_2", limit: 1, duration: MINUTE },
    ]);
    expect(multi).toEqual({
      meta,
      data: {
        passed: true,
        limits: [
          { namespace: "sdk.v2", identifier: "user_2", limit: 10, remaining: 9, reset: reset(), passed: true, overrideId },
          { namespace: "sdk.v2.other", identifier: "user_2", limit: 1, remaining: 0, reset: reset(), passed: true },
        ],
      },
    });

    const page = await unkey.ratelimit.listOverrides({ namespace: "sdk.v2" });
    expect(page.result).toEqual({ meta, data: [{ overrideId, identifier: "user_*", limit: 10, duration: MINUTE }], pagination: { hasMore: false } });

    expect(await unkey.ratelimit.deleteOverride({ namespace: "sdk.v2", identifier: "user_*" })).toEqual({ meta, data: {} });
    expect(await unkey.ratelimit.listOverrides({ namespace: "sdk.v2" }).then((p) => p.result.data)).toEqual([]);
  });

  it("listOverrides pages through the SDK's iterator with the server's cursor", async () => {
    const unkey = sdk();
    await unkey.ratelimit.limit({ namespace: "sdk.pages", identifier: "x", limit: 1, duration: MINUTE, cost: 0 });
    for (let i = 0; i < 5; i++) {
      harness.clock.advance(1);
      await unkey.ratelimit.setOverride({ namespace: "sdk.pages", identifier: `id_${i}`, limit: i, duration: MINUTE });
    }
    const seen: string[] = [];
    for await (const page of await unkey.ratelimit.listOverrides({ namespace: "sdk.pages", limit: 2 })) {
      seen.push(...page.result.data.map((o) => o.identifier));
    }
    expect(seen).toEqual(["id_0", "id_1", "id_2", "id_3", "id_4"]);
  });

  it("surfaces 400, 403 and 404 as the SDK's typed errors", async () => {
    const bad = await thrown(() => sdk().ratelimit.limit({ namespace: "sdk.err", identifier: "", limit: 1, duration: MINUTE }));
    expect(bad).toBeInstanceOf(BadRequestErrorResponse);
    const { key } = await harness.seed.rootKey(["ratelimit.*.limit"]);
    const forbidden = await thrown(() => sdk(key).ratelimit.limit({ namespace: "sdk.unknown", identifier: "u", limit: 1, duration: MINUTE }));
    expect(forbidden).toBeInstanceOf(ForbiddenErrorResponse);
    expect((forbidden as ForbiddenErrorResponse).error.detail).toContain("ratelimit.*.create_namespace");
    const missing = await thrown(() => sdk().ratelimit.getOverride({ namespace: "sdk.none", identifier: "u" }));
    expect(missing).toBeInstanceOf(NotFoundErrorResponse);
  });
});
