import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { manualClock, startKeyward, type RunningKeyward } from "../../support/keyward.js";
import { startClientWorker } from "../../support/client-worker.js";
import { startSecondInstance, type SecondInstance } from "../../support/second-instance.js";

const MINUTE = 60_000;
const WORKER = fileURLToPath(new URL("./fixtures/limit-worker.ts", import.meta.url));

type Counts = Record<string, number>;

function tally(outcomes: string[]): Counts {
  const counts: Counts = {};
  for (const outcome of outcomes) counts[outcome] = (counts[outcome] ?? 0) + 1;
  return counts;
}

/** `count` REST v2 calls of `op` with `body` sent at once, round-robin over `baseUrls`; outcomes counted. */
async function callAtOnce(baseUrls: string[], rootKey: string, op: string, body: unknown, count: number): Promise<Counts> {
  const outcomes = await Promise.all(Array.from({ length: count }, async (_, i) => {
    const response = await fetch(`${baseUrls[i % baseUrls.length]}/v2/${op}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${rootKey}` },
      body: JSON.stringify(body),
    });
    const json = await response.json();
    if (response.status !== 200) return `HTTP_${response.status}`;
    return (json.data.success ?? json.data.passed) ? "success" : "denied";
  }));
  return tally(outcomes);
}

/** What a cost-0 call sees left in the window. */
async function remaining(keyward: RunningKeyward, body: Record<string, unknown>): Promise<number> {
  const response = await fetch(`${keyward.baseUrl}/v2/ratelimit.limit`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${keyward.rootKey}` },
    body: JSON.stringify({ ...body, cost: 0 }),
  });
  return (await response.json()).data.remaining;
}

/** The exactness cases on one server, whatever counters it runs on. */
function exactnessCases(server: () => RunningKeyward) {
  it("300 concurrent ratelimit.limit calls against limit 100: exactly 100 succeed, and the window holds 100", async () => {
    const keyward = server();
    const body = { namespace: "exact", identifier: "user-300", limit: 100, duration: MINUTE };
    expect(await callAtOnce([keyward.baseUrl], keyward.rootKey, "ratelimit.limit", body, 300)).toEqual({ success: 100, denied: 200 });
    expect(await remaining(keyward, body)).toBe(0);
  });

  it("300 concurrent first uses of an unknown namespace: one namespace is created and exactly 100 succeed", async () => {
    const keyward = server();
    const body = { namespace: `first-use-${Math.random().toString(36).slice(2)}`, identifier: "u", limit: 100, duration: MINUTE };
    expect(await callAtOnce([keyward.baseUrl], keyward.rootKey, "ratelimit.limit", body, 300)).toEqual({ success: 100, denied: 200 });
    expect(await keyward.documents.ratelimitNamespaces.findByName(keyward.workspaceId, body.namespace)).toBeDefined();
  });

  it("300 concurrent multiLimit calls over two limits (100 and 60): exactly 60 pass and both windows hold 60", async () => {
    const keyward = server();
    const a = { namespace: "multi-a", identifier: "user-m", limit: 100, duration: MINUTE };
    const b = { namespace: "multi-b", identifier: "user-m", limit: 60, duration: MINUTE };
    expect(await callAtOnce([keyward.baseUrl], keyward.rootKey, "ratelimit.multiLimit", [a, b], 300)).toEqual({ success: 60, denied: 240 });
    expect(await remaining(keyward, a)).toBe(40);
    expect(await remaining(keyward, b)).toBe(0);
  });
}

describe("ratelimit.limit concurrency", () => {
  // A frozen clock: no window boundary can fall inside a burst.
  const clock = manualClock(Date.UTC(2030, 0, 1, 0, 0, 30));

  describe("on the embedded counters", () => {
    let keyward: RunningKeyward;
    beforeAll(async () => {
      keyward = await startKeyward({ clock });
    });
    afterAll(() => keyward?.stop());
    exactnessCases(() => keyward);

    it("3 client processes firing 100 calls each at one server against limit 100: exactly 100 succeed", async () => {
      const body = JSON.stringify({ namespace: "processes", identifier: "embedded", limit: 100, duration: MINUTE });
      const workers = await Promise.all([0, 1, 2].map(() => startClientWorker<Counts>(WORKER, [keyward.baseUrl, keyward.rootKey, body, "100"])));
      for (const worker of workers) worker.go();
      const results = await Promise.all(workers.map((worker) => worker.result()));
      const total = (outcome: string) => results.reduce((sum, r) => sum + (r[outcome] ?? 0), 0);
      expect({ success: total("success"), denied: total("denied") }).toEqual({ success: 100, denied: 200 });
    });
  });

  describe("on Redis counters", () => {
    let keyward: RunningKeyward;
    let second: SecondInstance;
    beforeAll(async () => {
      keyward = await startKeyward({ clock, redisUrl: inject("redisUrl") });
      second = await startSecondInstance(keyward, { redisUrl: inject("redisUrl"), clock });
    });
    afterAll(async () => {
      await second?.stop();
      await keyward?.stop();
    });
    exactnessCases(() => keyward);

    it("two instances sharing Redis, hit at once with 300 calls against limit 100: exactly 100 succeed", async () => {
      const body = { namespace: "instances", identifier: "u", limit: 100, duration: MINUTE };
      expect(await callAtOnce([keyward.baseUrl, second.baseUrl], keyward.rootKey, "ratelimit.limit", body, 300))
        .toEqual({ success: 100, denied: 200 });
    });

    it("3 client processes over two instances against limit 100: exactly 100 succeed in total", async () => {
      const body = JSON.stringify({ namespace: "processes", identifier: "redis", limit: 100, duration: MINUTE });
      const workers = await Promise.all([
        startClientWorker<Counts>(WORKER, [keyward.baseUrl, keyward.rootKey, body, "100"]),
        startClientWorker<Counts>(WORKER, [second.baseUrl, keyward.rootKey, body, "100"]),
        startClientWorker<Counts>(WORKER, [second.baseUrl, keyward.rootKey, body, "100"]),
      ]);
      for (const worker of workers) worker.go();
      const results = await Promise.all(workers.map((worker) => worker.result()));
      const total = (outcome: string) => results.reduce((sum, r) => sum + (r[outcome] ?? 0), 0);
      expect({ success: total("success"), denied: total("denied") }).toEqual({ success: 100, denied: 200 });
    });
  });
});
