import { Code } from "@connectrpc/connect";
import { afterEach, describe, expect, it } from "vitest";
import { callOperation, OPERATIONS } from "../../support/operations.js";
import { bearerOf } from "../../support/refusal.js";
import { useKeyward } from "../../support/use-keyward.js";
import { ALL_VIAS, V2_AND_RPC } from "../../support/vias.js";

describe("ratelimit.limit and ratelimit.multiLimit with the counter store unreachable", () => {
  const harness = useKeyward();
  let restore: (() => void) | undefined;
  afterEach(() => restore?.());

  /** Makes every consume reject as an unreachable Redis does; the app holds this very store object. */
  function breakCounters() {
    const counters = harness.keyward.stores.counters;
    const original = counters.consume;
    counters.consume = () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:6379"));
    restore = () => void (counters.consume = original);
  }

  async function expectUnavailable(op: "ratelimit.limit" | "ratelimit.multiLimit", via: (typeof ALL_VIAS)[number], input: unknown) {
    const outcome = await callOperation(harness.keyward.baseUrl, via, OPERATIONS[op], input, { authorization: bearerOf(harness.keyward.rootKey) });
    if (outcome.via === "v2") {
      expect(outcome.rest.status).toBe(503);
      expect(outcome.rest.body.error).toMatchObject({ status: 503, title: "Service Unavailable", detail: expect.stringContaining("counter store") });
    } else if (outcome.via === "v1") {
      expect(outcome.rest.status).toBe(503);
      expect(outcome.rest.body.error).toMatchObject({ code: "INTERNAL_SERVER_ERROR", message: expect.stringContaining("counter store") });
    } else {
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect(Code[outcome.error.code]).toBe(Code[Code.Unavailable]);
    }
  }

  it("fails closed with 503 (UNAVAILABLE over RPC), never success, on every transport", async () => {
    breakCounters();
    const check = { namespace: "down", identifier: "u", limit: 100, duration: 60_000 };
    for (const via of ALL_VIAS) await expectUnavailable("ratelimit.limit", via, check);
    for (const via of V2_AND_RPC) await expectUnavailable("ratelimit.multiLimit", via, { limits: [check] });
  });
});
