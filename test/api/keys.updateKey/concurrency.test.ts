import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import type { RestResponse } from "../../support/rest.js";
import { useKeyward } from "../../support/use-keyward.js";
import { connect, grpc, viaClient } from "../../support/vias.js";

const RACERS = 20;

const byRequestId = (a: { requestId: string }, b: { requestId: string }) => a.requestId.localeCompare(b.requestId);

describe("keys.updateKey under concurrency", () => {
  const harness = useKeyward();
  const auditOf = async (keyId: string) =>
    (await harness.rest.v2("auditLogs.list", { resourceId: keyId, actions: ["key.update"] }, harness.keyward.rootKey)).body.data;
  const requestIdOf = (answer: RestResponse) => answer.body.meta.requestId as string;

  /** Fires `RACERS` v2 updates of one key at once, the i-th with `body(i)`; returns the answers by their outcome. */
  async function race(keyId: string, body: (i: number) => Record<string, unknown>) {
    const answers = await Promise.all(
      Array.from({ length: RACERS }, (_, i) => harness.rest.v2("keys.updateKey", { keyId, ...body(i) }, harness.keyward.rootKey)),
    );
    const won = answers.flatMap((answer, i) => (answer.status === 200 ? [i] : []));
    const lost = answers.flatMap((answer, i) => (answer.status === 409 ? [i] : []));
    expect(won.length + lost.length, JSON.stringify(answers.map((a) => a.status))).toBe(RACERS);
    for (const i of lost) {
      expect(answers[i].body.error).toMatchObject({ status: 409, type: "https://keyward.dev/docs/errors/conflict" });
      expect(answers[i].body.error.detail).toContain("retry the request");
    }
    return { answers, won, lost };
  }

  /**
   * Asserts that the identities named `${prefix}<i>` and the audit records are exactly those of the 200 answers: per
   * winner a key.update record naming the key and an identity.create record naming the identity its write created. Returns the identity
   * ids by external id.
   */
  async function expectTracesOfWinnersOnly(keyId: string, prefix: string, { answers, won }: Awaited<ReturnType<typeof race>>) {
    const identities = await harness.keyward.documents.identities.list(harness.keyward.workspaceId, { limit: 100 });
    const created = identities.filter((identity) => identity.externalId.startsWith(prefix));
    expect(created.map((identity) => identity.externalId).sort()).toEqual(won.map((i) => `${prefix}${i}`).sort());
    const idOf = new Map(created.map((identity) => [identity.externalId, identity.id]));
    // The key's key.update records, and the identity.create records of the race's requests (they name the identity).
    const racing = new Set(answers.map(requestIdOf));
    const identityRecords = (await harness.rest.v2("auditLogs.list", { actions: ["identity.create"], limit: 100 }, harness.keyward.rootKey)).body.data
      .filter((r: any) => racing.has(r.requestId));
    const records = [...(await auditOf(keyId)), ...identityRecords];
    const order = (a: { requestId: string; action: string }, b: { requestId: string; action: string }) =>
      byRequestId(a, b) || (a.action < b.action ? -1 : a.action > b.action ? 1 : 0);
    expect(records.map((r: any) => ({ requestId: r.requestId, action: r.action, resources: r.resources })).sort(order)).toEqual(
      won.flatMap((i) => [
        { requestId: requestIdOf(answers[i]), action: "key.update", resources: [{ type: "key", id: keyId }] },
        { requestId: requestIdOf(answers[i]), action: "identity.create", resources: [{ type: "identity", id: idOf.get(`${prefix}${i}`) }] },
      ]).sort(order),
    );
    return idOf;
  }

  it("20 identity changes of a key with credits at once: 409s leave no identity, audit record or balance; the balance survives whole", async () => {
    const apiId = await harness.seed.api({ name: "identity-race" });
    // Until a round has 409s (the first may not: its requests open their connections one by one). The balance is
    // copied to the new identity's counter tag before the write, so racers that read the key meanwhile cannot rebase
    // their identity change onto the winner's.
    let conflicts = 0;
    for (let round = 0; round < 5 && conflicts === 0; round++) {
      const { keyId } = await harness.seed.key(apiId, { credits: { remaining: 50 } });
      const prefix = `racer_${round}_`;
      const outcome = await race(keyId, (i) => ({ externalId: `${prefix}${i}` }));
      expect(outcome.won.length).toBeGreaterThanOrEqual(1);
      conflicts = outcome.lost.length;
      const idOf = await expectTracesOfWinnersOnly(keyId, prefix, outcome);

      const view = (await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey)).body.data;
      expect(outcome.won.map((i) => idOf.get(`${prefix}${i}`))).toContain(view.identity.id);
      expect(view.credits).toEqual({ remaining: 50 });
      expect(await harness.keyward.stores.counters.readCredits(keyId, keyId)).toBeUndefined();
    }
    expect(conflicts).toBeGreaterThanOrEqual(1);
  });

  it("20 identity changes of a key without credits at once: whatever the split, only 200 answers left identities and records", async () => {
    const apiId = await harness.seed.api({ name: "plain-race" });
    const { keyId } = await harness.seed.key(apiId, { name: "raced" });
    const outcome = await race(keyId, (i) => ({ externalId: `plain_${i}` }));
    expect(outcome.won.length).toBeGreaterThanOrEqual(1);
    const idOf = await expectTracesOfWinnersOnly(keyId, "plain_", outcome);
    const key = await harness.keyward.documents.keys.get(harness.keyward.workspaceId, keyId);
    expect(outcome.won.map((i) => idOf.get(`plain_${i}`))).toContain(key?.identityId);
  });

  it("20 credit settings with identity changes at once: the balance is the one the linked winner set, and 409s left nothing", async () => {
    const apiId = await harness.seed.api({ name: "balance-race" });
    const { keyId } = await harness.seed.key(apiId, { externalId: "initial_owner", credits: { remaining: 1 } });
    const outcome = await race(keyId, (i) => ({ externalId: `balance_${i}`, credits: { remaining: 100 + i } }));
    await expectTracesOfWinnersOnly(keyId, "balance_", outcome);
    const view = (await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey)).body.data;
    const winner = outcome.won.find((i) => view.identity.externalId === `balance_${i}`);
    expect(winner, `linked to ${view.identity.externalId}`).toBeDefined();
    expect(view.credits).toEqual({ remaining: 100 + winner! });
    // The balance left the initial identity's counter tag.
    const start = await harness.keyward.documents.identities.findByExternalId(harness.keyward.workspaceId, "initial_owner");
    expect(await harness.keyward.stores.counters.readCredits(start!.id, keyId)).toBeUndefined();
  });

  it("over Connect and gRPC a lost race answers ABORTED (retry), not ALREADY_EXISTS, and leaves no identity", async () => {
    const apiId = await harness.seed.api({ name: "rpc-race" });
    for (const via of [connect, grpc]) {
      const client = viaClient(harness.keyward.baseUrl, via, harness.keyward.rootKey);
      let aborted: string[] = [];
      for (let round = 0; round < 5 && aborted.length === 0; round++) {
        const { keyId } = await harness.seed.key(apiId, { credits: { remaining: 5 } });
        const prefix = `${via}_${round}_`;
        const outcomes = await Promise.all(Array.from({ length: RACERS }, (_, i) =>
          client.call("keys.updateKey", { keyId, externalId: `${prefix}${i}`, updateMask: "externalId" })));
        const failed = outcomes.flatMap((outcome, i) => ("ok" in outcome && !outcome.ok ? [{ i, error: outcome.error }] : []));
        expect(failed.map(({ error }) => Code[error.code])).toEqual(failed.map(() => Code[Code.Aborted]));
        for (const { error } of failed) expect(error.rawMessage).toContain("retry the request");
        aborted = failed.map(({ i }) => `${prefix}${i}`);
        const identities = await harness.keyward.documents.identities.list(harness.keyward.workspaceId, { limit: 100 });
        const created = new Set(identities.map((identity) => identity.externalId));
        expect(aborted.filter((externalId) => created.has(externalId))).toEqual([]);
      }
      expect(aborted.length, via).toBeGreaterThanOrEqual(1);
    }
  });
});
