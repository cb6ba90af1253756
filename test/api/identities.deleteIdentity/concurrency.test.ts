import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";

const RACERS = 20;

describe("identities.deleteIdentity under concurrency", () => {
  const harness = useKeyward();

  it("20 deletes of one identity at once: one 200, nineteen 404 that wrote nothing; the key is unlinked once, credits intact", async () => {
    const apiId = await harness.seed.api({ name: "identity-delete-race" });
    const { identityId } = (await harness.rest.v2("identities.createIdentity", { externalId: "contested" }, harness.keyward.rootKey)).body.data;
    const { keyId } = await harness.seed.key(apiId, { externalId: "contested", credits: { remaining: 7 } });
    harness.writes.clear();

    const answers = await Promise.all(
      Array.from({ length: RACERS }, () => harness.rest.v2("identities.deleteIdentity", { identity: identityId }, harness.keyward.rootKey)),
    );
    const won = answers.filter((answer) => answer.status === 200);
    const lost = answers.filter((answer) => answer.status === 404);
    expect({ won: won.length, lost: lost.length }).toEqual({ won: 1, lost: RACERS - 1 });
    for (const answer of lost) expect(answer.body.error.detail).toBe(`The identity ${identityId} does not exist.`);

    // One write, the winner's: the identity deleted and its key unlinked together.
    expect(harness.writes.writes).toEqual([{ call: "identities.markDeleted", id: identityId }]);
    const records = (await harness.rest.v2("auditLogs.list", { actions: ["identity.delete"] }, harness.keyward.rootKey)).body.data;
    const ours = new Set(answers.map((answer) => answer.body.meta?.requestId ?? answer.headers.get("x-request-id")));
    expect(records.filter((r: any) => ours.has(r.requestId)).map((r: any) => ({ requestId: r.requestId, resources: r.resources }))).toEqual([
      { requestId: won[0].body.meta.requestId, resources: [{ type: "identity", id: identityId }] },
    ]);

    const key = (await harness.rest.v2("keys.getKey", { keyId }, harness.keyward.rootKey)).body.data;
    expect({ identity: key.identity, credits: key.credits }).toEqual({ identity: undefined, credits: { remaining: 7 } });
    expect((await harness.keyward.documents.keys.get(harness.keyward.workspaceId, keyId))?.identityId).toBeUndefined();
  });
});
