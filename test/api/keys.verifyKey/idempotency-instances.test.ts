/**
 * Retry-safe verification across instances and across a deadline: three Keyward instances on one Redis answer a
 * retried verification once, and a gRPC call whose deadline expired while Redis stalled (after the server began
 * spending) gets the first answer when retried with its key.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startRedisServer } from "../../../scripts/redis-server.mjs";
import { startKeyward, type RunningKeyward } from "../../support/keyward.js";
import { startSecondInstance, type SecondInstance } from "../../support/second-instance.js";
import { idempotentVerifier, type IdempotentVia } from "../../support/idempotent-verify.js";
import { keyAdmin } from "../../support/verify-key.js";
import type { VerificationEvent } from "../../../src/store/ports/events.js";

describe("keys.verifyKey with an idempotency key across three instances on one Redis", () => {
  let first: RunningKeyward;
  const others: SecondInstance[] = [];

  beforeAll(async () => {
    first = await startKeyward({ redisUrl: inject("redisUrl") });
    for (let i = 0; i < 2; i++) others.push(await startSecondInstance(first, { redisUrl: inject("redisUrl") }));
  }, 60_000);
  afterAll(async () => {
    for (const other of others) await other.stop();
    await first?.stop();
  });

  it("60 concurrent calls with one key over 3 instances and 4 transports spend once; a different request is refused on every instance", async () => {
    const admin = keyAdmin(first.baseUrl, first.rootKey);
    const apiId = await admin.api("idempotent-instances");
    const { keyId, key } = await admin.key(apiId, { credits: { remaining: 50 } });
    const verifiers = [first.baseUrl, ...others.map((o) => o.baseUrl)].map((url) => idempotentVerifier(url, first.rootKey));
    const vias: IdempotentVia[] = ["v2", "connect", "grpc", "grpcWeb"];
    const id = `instances-${Date.now()}`;
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => verifiers[i % 3]!(vias[i % 4]!, { key, cost: 5, idempotencyKey: id })));
    expect(new Set(answers.map((a) => JSON.stringify(a)))).toEqual(new Set([JSON.stringify({ code: "VALID", valid: true, credits: 45 })]));
    expect(await admin.balance(keyId)).toBe(45);
    const other = await admin.key(apiId, { credits: { remaining: 50 } });
    for (const verify of verifiers) {
      expect(await verify("v2", { key: other.key, cost: 5, idempotencyKey: id })).toEqual({ error: { status: 409 } });
      expect(await verify("grpc", { key, cost: 6, idempotencyKey: id })).toEqual({ error: { rpc: "FailedPrecondition" } });
    }
    expect([await admin.balance(keyId), await admin.balance(other.keyId)]).toEqual([45, 50]);
  }, 60_000);
});

describe("keys.verifyKey: a gRPC call past its deadline, retried with its idempotency key", () => {
  // A private Redis: the test pauses it, which must not stall other suites.
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  let keyward: RunningKeyward;
  let pauser: Redis;

  beforeAll(async () => {
    redis = await startRedisServer();
    keyward = await startKeyward({ redisUrl: redis.url });
    pauser = new Redis(redis.url, { lazyConnect: true });
    await pauser.connect();
  }, 60_000);
  afterAll(async () => {
    pauser?.disconnect();
    await keyward?.stop();
    await redis?.stop();
  });

  it("the first call times out while Redis is paused but still spends; the retry gets that first answer and spends nothing more", async () => {
    const admin = keyAdmin(keyward.baseUrl, keyward.rootKey);
    const { keyId, key } = await admin.key(await admin.api("deadline"), { credits: { remaining: 10 } });
    const verify = idempotentVerifier(keyward.baseUrl, keyward.rootKey);
    const id = `deadline-${Date.now()}`;
    // Watches the verification events the server records (the real store still gets them).
    const recorded: VerificationEvent[] = [];
    const { events } = keyward.stores;
    const record = events.record.bind(events);
    events.record = (event) => {
      recorded.push(event);
      record(event);
    };
    // Every Redis command waits 1.5 s: the call has begun spending when its 500 ms deadline passes.
    await pauser.call("CLIENT", "PAUSE", "1500", "ALL");
    expect(await verify("grpc", { key, cost: 2, idempotencyKey: id, timeoutMs: 500 })).toEqual({ error: { rpc: "DeadlineExceeded" } });
    // The client cannot tell whether it was spent; retrying with the key is safe either way. The retry queues behind
    // the first call's steps on the server's Redis connection, so by its answer the first call has finished.
    let retryId: string | null = null;
    const retry = await verify("grpc", { key, cost: 2, idempotencyKey: id, timeoutMs: 10_000, onRequestId: (requestId) => (retryId = requestId) });
    expect(retry).toEqual({ code: "VALID", valid: true, credits: 8 });
    // One verification event, and not the retry's: the call that timed out is the one that spent.
    const spent = recorded.filter((event) => event.keyId === keyId);
    expect(spent.map((event) => [event.outcome, event.creditsSpent])).toEqual([["VALID", 2]]);
    expect(retryId).toMatch(/^req_/);
    expect(spent[0]!.requestId).not.toBe(retryId);
    expect(await verify("grpc", { key, cost: 2, idempotencyKey: id })).toEqual({ code: "VALID", valid: true, credits: 8 });
    expect(await admin.balance(keyId)).toBe(8);
  }, 30_000);
});
