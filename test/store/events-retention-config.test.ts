import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../src/config.js";
import { openStores } from "../../src/open-stores.js";
import type { VerificationEvent } from "../../src/store/ports/events.js";

const DAY = 86_400_000;

describe("KEYWARD_EVENTS_RETENTION_DAYS", () => {
  it("defaults to 90 days and accepts whole days from 1; anything else stops start-up with a clear message", () => {
    expect(readConfig({}).eventsRetentionDays).toBe(90);
    expect(readConfig({ KEYWARD_EVENTS_RETENTION_DAYS: "7" }).eventsRetentionDays).toBe(7);
    for (const bad of ["0", "-3", "1.5", "ninety", ""]) {
      expect(() => readConfig({ KEYWARD_EVENTS_RETENTION_DAYS: bad })).toThrow(/KEYWARD_EVENTS_RETENTION_DAYS must be a whole number of days/);
    }
  });

  it("the embedded store deletes segments past the retention at the next flush and keeps recent ones", async () => {
    const dir = await mkdtemp(join(tmpdir(), "keyward-retention-"));
    try {
      const stores = await openStores({ dataDir: dir, eventsRetentionDays: 2 });
      const now = Date.now();
      const event = (time: number): VerificationEvent => ({
        time, workspaceId: "ws_A", apiId: "api_1", keyId: "key_1", outcome: "VALID", tags: [], creditsSpent: 0, latencyMs: 1, requestId: "req_1",
      });
      for (const age of [3 * DAY, 2 * DAY + 2 * 3_600_000, DAY, 0]) stores.events.record(event(now - age));
      await stores.events.flush();
      const segments = (await readdir(join(dir, "events"))).filter((name) => name.endsWith(".jsonl"));
      expect(segments).toHaveLength(2);
      const answer = await stores.events.query({ workspaceId: "ws_A", start: now - 4 * DAY, end: now + 1, granularity: "day", groupBy: [] });
      expect(answer.reduce((n, row) => n + row.total, 0)).toBe(2);
      await stores.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
