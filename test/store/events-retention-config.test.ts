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

describe("KEYWARD_EVENTS_MAX_STORED", () => {
  it("defaults to 10,000,000 and accepts whole numbers from 1; anything else stops start-up with a clear message", () => {
    expect(readConfig({}).eventsMaxStored).toBe(10_000_000);
    expect(readConfig({ KEYWARD_EVENTS_MAX_STORED: "250000" }).eventsMaxStored).toBe(250_000);
    for (const bad of ["0", "-3", "1.5", "lots", "1e400"]) {
      expect(() => readConfig({ KEYWARD_EVENTS_MAX_STORED: bad })).toThrow(/KEYWARD_EVENTS_MAX_STORED must be a whole number of events \(at least 1\), got /);
    }
  });

  it("caps each embedded stream: the oldest hours go first though within retention, never the newest", async () => {
    const dir = await mkdtemp(join(tmpdir(), "keyward-max-stored-"));
    try {
      const stores = await openStores({ ...readConfig({ KEYWARD_EVENTS_MAX_STORED: "3" }), dataDir: dir });
      const now = Date.now();
      const hour = 3_600_000;
      const event = (time: number): VerificationEvent => ({
        time, workspaceId: "ws_A", apiId: "api_1", keyId: "key_1", outcome: "VALID", tags: [], creditsSpent: 0, latencyMs: 1, requestId: "req_1",
      });
      // 2 + 2 + 1 events in three hours of the last day: 5 > 3, so the oldest hour (2 events) goes and 3 stay.
      for (const store of [stores.events, stores.ratelimitEvents]) {
        for (const age of [3 * hour, 3 * hour, 2 * hour, 2 * hour, 0]) store.record(event(now - age));
        await store.flush();
      }
      for (const sub of ["events", join("ratelimits", "events")]) {
        const segments = (await readdir(join(dir, sub))).filter((name) => name.endsWith(".jsonl"));
        expect(segments.sort()).toEqual([2 * hour, 0].map((age) => `${Math.floor((now - age) / hour) * hour}.jsonl`).sort());
      }
      const answer = await stores.events.query({ workspaceId: "ws_A", start: now - DAY, end: now + 1, granularity: "hour", groupBy: [] });
      expect(answer.reduce((n, row) => n + row.total, 0)).toBe(3);

      // One newest hour larger than the cap is kept whole.
      for (let i = 0; i < 5; i++) stores.events.record(event(now));
      await stores.events.flush();
      expect((await readdir(join(dir, "events"))).filter((name) => name.endsWith(".jsonl"))).toEqual([`${Math.floor(now / hour) * hour}.jsonl`]);
      await stores.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
