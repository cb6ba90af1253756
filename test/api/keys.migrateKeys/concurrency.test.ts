import { describe, expect, it } from "vitest";
import { foreignKey } from "../../support/imports.js";
import { apiKeys } from "../../support/key-state.js";
import { useKeyward } from "../../support/use-keyward.js";

describe("keys.migrateKeys", () => {
  const harness = useKeyward();

  it("concurrent imports of the same hashes make exactly one key per hash; every other copy is reported failed", async () => {
    const apiId = await harness.seed.api({ name: "concurrent" });
    const keys = Array.from({ length: 50 }, () => foreignKey());
    const shuffled = (n: number) => [...keys].sort((a, b) => ((a.hex.charCodeAt(n) ^ b.hex.charCodeAt(n + 1)) % 3) - 1);
    const answers = await Promise.all(Array.from({ length: 5 }, (_, n) =>
      harness.rest.v2("keys.migrateKeys", { migrationId: "sha256_hex", apiId, keys: shuffled(n).map((k) => ({ hash: k.hex })) }, harness.keyward.rootKey)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const migrated = answers.flatMap((a) => a.body.data.migrated as { hash: string; keyId: string }[]);
    const failed = answers.flatMap((a) => a.body.data.failed as string[]);
    expect(migrated.map((m) => m.hash).sort()).toEqual(keys.map((k) => k.hex).sort());
    expect(failed).toHaveLength(4 * keys.length);
    const stored = await apiKeys(harness, apiId);
    expect(stored.map((r) => r.id).sort()).toEqual(migrated.map((m) => m.keyId).sort());
  });
});
