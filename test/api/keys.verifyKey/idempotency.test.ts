/**
 * Retry-safe verification: an idempotency key makes a retry answer the first result and spend nothing more, on every
 * transport, on the embedded counters and on Redis.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { manualClock, startKeyward, type RunningKeyward } from "../../support/keyward.js";
import { IDEMPOTENT_VIAS, idempotentVerifier } from "../../support/idempotent-verify.js";
import { keyAdmin, type KeyAdmin } from "../../support/verify-key.js";

const BACKENDS = [
  { name: "embedded counters", redisUrl: () => undefined },
  { name: "Redis counters", redisUrl: () => inject("redisUrl") },
];
const HOUR = 3_600_000;
const restError = (via: string, status: number, v1Code: string) => (via === "v2" ? { status } : { status, v1Code });

for (const backend of BACKENDS) {
  describe(`keys.verifyKey with an idempotency key (${backend.name})`, () => {
    const clock = manualClock(Date.UTC(2030, 0, 1));
    let keyward: RunningKeyward;
    let admin: KeyAdmin;
    let verify: ReturnType<typeof idempotentVerifier>;
    let apiId: string;
    let n = 0;
    const idem = () => `retry-${backend.redisUrl() ? "r" : "e"}-${++n}-${Date.now()}`;

    beforeAll(async () => {
      keyward = await startKeyward({ clock, redisUrl: backend.redisUrl() });
      admin = keyAdmin(keyward.baseUrl, keyward.rootKey);
      verify = idempotentVerifier(keyward.baseUrl, keyward.rootKey);
      apiId = await admin.api("idempotency");
    }, 30_000);
    afterAll(async () => {
      await keyward?.stop();
    });

    it("a retried verification answers the first result and spends once, on every transport (header)", async () => {
      for (const via of IDEMPOTENT_VIAS) {
        const { keyId, key } = await admin.key(apiId, { credits: { remaining: 10 } });
        const id = idem();
        const first = await verify(via, { key, cost: 3, idempotencyKey: id });
        expect({ via, ...first }).toEqual({ via, code: "VALID", valid: true, credits: 7 });
        for (let i = 0; i < 3; i++) expect({ via, ...(await verify(via, { key, cost: 3, idempotencyKey: id })) }).toEqual({ via, ...first });
        expect({ via, balance: await admin.balance(keyId) }).toEqual({ via, balance: 7 });
        // Without the key (or with another) the same request spends again.
        expect(await verify(via, { key, cost: 3 })).toEqual({ code: "VALID", valid: true, credits: 4 });
        expect(await verify(via, { key, cost: 3, idempotencyKey: idem() })).toEqual({ code: "VALID", valid: true, credits: 1 });
      }
    });

    it("analytics count a replayed verification once: replays spend nothing and record no event", async () => {
      const { keyId, key } = await admin.key(apiId, { credits: { remaining: 10 } });
      const id = idem();
      const since = clock.now();
      for (const via of ["v2", "grpc", "connect", "v2"] as const) {
        expect(await verify(via, { key, cost: 2, idempotencyKey: id })).toEqual({ code: "VALID", valid: true, credits: 8 });
      }
      await verify("v2", { key, cost: 2 });
      const { events } = keyward.stores;
      await events.flush();
      const rows = await events.aggregate({ workspaceId: keyward.workspaceId, since, until: since + HOUR, bucketMs: HOUR, keyId });
      expect(rows.map((r) => [r.outcome, r.count])).toEqual([["VALID", 2]]);
    });

    it("a retry spends no identity credits and no identity rate limit either", async () => {
      const externalId = `idem_identity_${n}_${backend.name.length}`;
      const { identityId } = await admin.ok("identities.createIdentity", {
        externalId, credits: { remaining: 10 }, ratelimits: [{ name: "shared", limit: 5, duration: 60_000, autoApply: true }],
      });
      const { key } = await admin.key(apiId, { externalId });
      const id = idem();
      for (const via of ["v2", "grpc", "grpcWeb"] as const) {
        expect({ via, ...(await verify(via, { key, cost: 3, idempotencyKey: id })) }).toEqual({ via, code: "VALID", valid: true });
      }
      const identity = await admin.ok("identities.getIdentity", { identity: identityId });
      expect(identity.credits).toEqual({ remaining: 7 });
      const probe = await fetch(`${keyward.baseUrl}/v2/keys.verifyKey`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${keyward.rootKey}` },
        body: JSON.stringify({ key, credits: { cost: 0 } }),
      }).then((r) => r.json());
      expect(probe.data.ratelimits[0]).toMatchObject({ name: "shared", remaining: 3 });
    });

    it("the request field works like the header on v2 and RPC, and both may be sent when they agree", async () => {
      for (const via of ["v2", "connect", "grpc", "grpcWeb"] as const) {
        const { keyId, key } = await admin.key(apiId, { credits: { remaining: 5 } });
        const id = idem();
        expect(await verify(via, { key, idempotencyKey: id, inBody: true })).toEqual({ code: "VALID", valid: true, credits: 4 });
        expect({ via, ...(await verify(via, { key, idempotencyKey: id })) }).toEqual({ via, code: "VALID", valid: true, credits: 4 });
        expect({ via, ...(await verify(via, { key, idempotencyKey: id, inBody: true })) }).toEqual({ via, code: "VALID", valid: true, credits: 4 });
        expect(await admin.balance(keyId)).toBe(4);
      }
    });

    it("a refusal is replayed too: USAGE_EXCEEDED stays the answer after a refill of credits within the window", async () => {
      const { keyId, key } = await admin.key(apiId, { credits: { remaining: 0 } });
      const id = idem();
      expect(await verify("v2", { key, idempotencyKey: id })).toEqual({ code: "USAGE_EXCEEDED", valid: false, credits: 0 });
      await admin.ok("keys.updateCredits", { keyId, operation: "set", value: 5 });
      expect(await verify("grpc", { key, idempotencyKey: id })).toEqual({ code: "USAGE_EXCEEDED", valid: false, credits: 0 });
      expect(await admin.balance(keyId)).toBe(5);
    });

    it("a retry answers the first result though the key was disabled or expired since, and spends nothing", async () => {
      const disabled = await admin.key(apiId, { credits: { remaining: 10 }, ratelimits: [{ name: "retry", limit: 10, duration: 60_000, autoApply: true }] });
      const expiring = await admin.key(apiId, { credits: { remaining: 10 }, expires: clock.now() + 60_000 });
      const ids = [idem(), idem()];
      expect(await verify("v2", { key: disabled.key, idempotencyKey: ids[0] })).toEqual({ code: "VALID", valid: true, credits: 9 });
      expect(await verify("v1", { key: expiring.key, idempotencyKey: ids[1] })).toEqual({ code: "VALID", valid: true, credits: 9 });
      await admin.update({ keyId: disabled.keyId, enabled: false });
      clock.advance(60_001);
      for (const via of ["v2", "grpc"] as const) {
        expect({ via, ...(await verify(via, { key: disabled.key, idempotencyKey: ids[0] })) }).toEqual({ via, code: "VALID", valid: true, credits: 9 });
      }
      expect(await verify("v1", { key: expiring.key, idempotencyKey: ids[1] })).toEqual({ code: "VALID", valid: true, credits: 9 });
      // Without the key (or with a new one) the refusal stands.
      expect(await verify("v2", { key: disabled.key, idempotencyKey: idem() })).toEqual({ code: "DISABLED", valid: false, credits: 9 });
      expect(await verify("v1", { key: expiring.key })).toEqual({ code: "EXPIRED", valid: false, credits: 9 });
      expect([await admin.balance(disabled.keyId), await admin.balance(expiring.keyId)]).toEqual([9, 9]);
    });

    it("the same idempotency key with a different request is 409 CONFLICT (REST) / FAILED_PRECONDITION (RPC) and spends nothing", async () => {
      const { keyId, key } = await admin.key(apiId, { credits: { remaining: 10 } });
      const other = await admin.key(apiId, { credits: { remaining: 10 } });
      const id = idem();
      expect(await verify("v2", { key, cost: 2, idempotencyKey: id })).toEqual({ code: "VALID", valid: true, credits: 8 });
      const changes = [{ key, cost: 3 }, { key, cost: 2, tags: ["t"] }, { key: other.key, cost: 2 }];
      for (const change of changes) {
        for (const via of ["v2", "v1", "legacy"] as const) {
          // v1 and legacy are another dialect, so even the same body differs from the v2 call: conflict as well.
          expect({ via, ...(await verify(via, { ...change, idempotencyKey: id })) }).toEqual({ via, error: restError(via, 409, "CONFLICT") });
        }
        for (const via of ["connect", "grpc", "grpcWeb"] as const) {
          expect({ via, ...(await verify(via, { ...change, idempotencyKey: id })) }).toEqual({ via, error: { rpc: "FailedPrecondition" } });
        }
      }
      expect([await admin.balance(keyId), await admin.balance(other.keyId)]).toEqual([8, 10]);
      // v2 error body is Unkey-style, as the other 409s.
      const response = await fetch(`${keyward.baseUrl}/v2/keys.verifyKey`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${keyward.rootKey}`, "idempotency-key": id },
        body: JSON.stringify({ key, credits: { cost: 5 } }),
      });
      const body = await response.json();
      expect(response.status).toBe(409);
      expect(body.error).toMatchObject({ status: 409, title: "Conflict", type: expect.stringMatching(/\/errors\/conflict$/) });
      expect(body.error.detail).toMatch(/idempotency key was used with a different request/);
      expect(body.error.detail).not.toContain(id);
    });

    it("a malformed idempotency key is 400 / INVALID_ARGUMENT and spends nothing", async () => {
      const { keyId, key } = await admin.key(apiId, { credits: { remaining: 3 } });
      for (const bad of ["x".repeat(256), "caf\u00e9", "tab\there"]) {
        for (const via of ["v2", "v1", "legacy"] as const) {
          // Non-ASCII cannot travel in a header: those go in the v2 body only.
          if (!/^[\x20-\x7e]*$/.test(bad) && via !== "v2") continue;
          const inBody = via === "v2" && !/^[\x20-\x7e\t]*$/.test(bad);
          expect({ via, bad: bad.slice(0, 8), ...(await verify(via, { key, idempotencyKey: bad, inBody })) })
            .toEqual({ via, bad: bad.slice(0, 8), error: restError(via, 400, "BAD_REQUEST") });
        }
        for (const via of ["connect", "grpc", "grpcWeb"] as const) {
          expect({ via, ...(await verify(via, { key, idempotencyKey: bad, inBody: true })) }).toEqual({ via, error: { rpc: "InvalidArgument" } });
        }
      }
      expect(await verify("v2", { key, idempotencyKey: "", inBody: true })).toEqual({ error: { status: 400 } });
      // Header and field that disagree.
      const response = await fetch(`${keyward.baseUrl}/v2/keys.verifyKey`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${keyward.rootKey}`, "idempotency-key": "a" },
        body: JSON.stringify({ key, idempotencyKey: "b" }),
      });
      expect(response.status).toBe(400);
      expect(await admin.balance(keyId)).toBe(3);
    });

    it("50 concurrent calls with the same idempotency key spend once and all answer the first result", async () => {
      const { keyId, key } = await admin.key(apiId, { credits: { remaining: 100 }, ratelimits: [{ name: "burst", limit: 1000, duration: 60_000, autoApply: true }] });
      const id = idem();
      // v2 and the RPCs share one request shape; v1 is another dialect, hence another request.
      const vias = ["v2", "connect", "grpc", "grpcWeb"] as const;
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => verify(vias[i % vias.length]!, { key, cost: 4, idempotencyKey: id })));
      expect(new Set(answers.map((a) => JSON.stringify(a)))).toEqual(new Set([JSON.stringify({ code: "VALID", valid: true, credits: 96 })]));
      expect(await admin.balance(keyId)).toBe(96);
      // The rate limit counted one use too.
      const limited = await fetch(`${keyward.baseUrl}/v2/keys.verifyKey`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${keyward.rootKey}` },
        body: JSON.stringify({ key, credits: { cost: 0 } }),
      }).then((r) => r.json());
      expect(limited.data.ratelimits[0]).toMatchObject({ name: "burst", remaining: 998 });
    });

    it("a key without credits or limits answers its retry the same, and the record is kept only within the window", async () => {
      const { key } = await admin.key(apiId, {});
      const id = idem();
      expect(await verify("v2", { key, idempotencyKey: id })).toEqual({ code: "VALID", valid: true });
      expect(await verify("v2", { key, cost: 9, idempotencyKey: id })).toEqual({ error: { status: 409 } });
      clock.advance(HOUR + 1);
      // The window (default 1 h) has passed: the key is free for a new request.
      expect(await verify("v2", { key, cost: 9, idempotencyKey: id })).toEqual({ code: "VALID", valid: true });
    });

    it("after the window the same key and request spend again", async () => {
      const { keyId, key } = await admin.key(apiId, { credits: { remaining: 10 } });
      const id = idem();
      expect(await verify("grpc", { key, idempotencyKey: id })).toEqual({ code: "VALID", valid: true, credits: 9 });
      clock.advance(HOUR - 1);
      expect(await verify("grpc", { key, idempotencyKey: id })).toEqual({ code: "VALID", valid: true, credits: 9 });
      clock.advance(2);
      expect(await verify("grpc", { key, idempotencyKey: id })).toEqual({ code: "VALID", valid: true, credits: 8 });
      expect(await admin.balance(keyId)).toBe(8);
    });

    it("idempotency keys are scoped to the workspace: another tenant's equal key neither collides nor replays", async () => {
      const created = await admin.ok("workspaces.createWorkspace", { name: `other-${n}` });
      const theirAdmin = keyAdmin(keyward.baseUrl, created.rootKey.key);
      const theirs = await theirAdmin.key(await theirAdmin.api("theirs"), { credits: { remaining: 10 } });
      const ours = await admin.key(apiId, { credits: { remaining: 10 } });
      const id = idem();
      expect(await verify("v2", { key: ours.key, idempotencyKey: id })).toEqual({ code: "VALID", valid: true, credits: 9 });
      const theirVerify = idempotentVerifier(keyward.baseUrl, created.rootKey.key);
      expect(await theirVerify("v2", { key: theirs.key, idempotencyKey: id })).toEqual({ code: "VALID", valid: true, credits: 9 });
      expect(await theirVerify("v2", { key: theirs.key, idempotencyKey: id })).toEqual({ code: "VALID", valid: true, credits: 9 });
      expect(await theirAdmin.balance(theirs.keyId)).toBe(9);
    });
  });
}

describe("keys.verifyKey: the idempotency window is configurable", () => {
  const clock = manualClock(Date.UTC(2030, 0, 1));
  let keyward: RunningKeyward;

  beforeAll(async () => {
    keyward = await startKeyward({ clock, idempotencyWindowMs: 10_000 });
  });
  afterAll(async () => {
    await keyward?.stop();
  });

  it("a 10 s window replays for 10 s, then the same request spends again", async () => {
    const admin = keyAdmin(keyward.baseUrl, keyward.rootKey);
    const verify = idempotentVerifier(keyward.baseUrl, keyward.rootKey);
    const { keyId, key } = await admin.key(await admin.api("window"), { credits: { remaining: 10 } });
    expect(await verify("v2", { key, idempotencyKey: "w" })).toEqual({ code: "VALID", valid: true, credits: 9 });
    clock.advance(9_999);
    expect(await verify("v2", { key, idempotencyKey: "w" })).toEqual({ code: "VALID", valid: true, credits: 9 });
    clock.advance(1);
    expect(await verify("v2", { key, idempotencyKey: "w" })).toEqual({ code: "VALID", valid: true, credits: 8 });
    expect(await admin.balance(keyId)).toBe(8);
  });
});
