import { describe, expect, it } from "vitest";
import { apiKeys, keyState } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";

// Racers whose notes on the key record (updateCredits writes it since it re-arms the credit events) lose and retry.
const RACERS = 50;

describe("keys.updateCredits under concurrency", () => {
  const harness = useKeyward();

  it("concurrent increments all apply and all answer 200, each noted on the key record without moving its percent base", async () => {
    const apiId = await harness.seed.api({ name: "racing-credits" });
    const { keyId } = await harness.seed.key(apiId, { credits: { remaining: 10 } });
    const answers = await Promise.all(Array.from({ length: RACERS }, () =>
      harness.rest.v2("keys.updateCredits", { keyId, operation: "increment", value: 1 }, harness.keyward.rootKey)));
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: RACERS }, () => 200));
    expect(answers.map((a) => a.body.data.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: RACERS }, (_, i) => 11 + i));
    expect((await keyState(harness, keyId)).remaining).toBe(10 + RACERS);
    const [record] = (await apiKeys(harness, apiId)).filter((k) => k.id === keyId);
    expect(record!.credits).toEqual({ base: 10, changedAt: harness.clock.now() });
    expect(record!.revision).toBeGreaterThanOrEqual(1);
  });
});
