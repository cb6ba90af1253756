import { describe, expect, it } from "vitest";
import { createEventBatcher } from "../../src/store/event-batcher.js";
import type { VerificationEvent } from "../../src/store/ports/events.js";
import { nextTurn } from "../../src/turn-end.js";

const event: VerificationEvent = {
  time: 1_700_000_000_000, workspaceId: "ws_1", apiId: "api_1", keyId: "key_1", outcome: "VALID", tags: [],
  creditsSpent: 0, latencyMs: 0.25, requestId: "req_1",
};

describe("event batcher", () => {
  it("ends each drain under steady recording, so afterFlush (retention, last use) runs while events keep coming", async () => {
    const writes: number[] = [];
    let afterFlushes = 0;
    const batcher = createEventBatcher({
      batchSize: 100,
      flushIntervalMs: 3_600_000,
      // Writes that yield to the event loop, as the embedded store's and MongoDB's do.
      async write(batch) {
        writes.push(batch.length);
        await nextTurn();
      },
      async afterFlush() {
        afterFlushes += 1;
      },
    });
    for (let turn = 0; turn < 50; turn++) {
      for (let i = 0; i < 30; i++) batcher.record(event);
      await nextTurn();
    }
    expect(afterFlushes).toBeGreaterThanOrEqual(5);
    expect(writes.every((n) => n <= 100)).toBe(true);
    await batcher.flush();
    expect(writes.reduce((a, b) => a + b, 0)).toBe(1_500);
    expect(batcher.stats()).toMatchObject({ written: 1_500, buffered: 0, dropped: 0, failedWrites: 0 });
    await batcher.close();
  });

  it("hands write at most writeSize events, one write per turn, and runs afterFlush once per drain", async () => {
    const writes: number[] = [];
    let turnsBetween = 0;
    let afterFlushes = 0;
    const batcher = createEventBatcher({
      batchSize: 1_000,
      writeSize: 128,
      flushIntervalMs: 3_600_000,
      async write(batch) {
        writes.push(batch.length);
      },
      async afterFlush() {
        afterFlushes += 1;
      },
    });
    for (let i = 0; i < 1_000; i++) batcher.record(event);
    // Counts the turn boundaries the drain leaves, up to the end of the drain.
    let draining = true;
    const countTurns = (): void => {
      if (!draining) return;
      turnsBetween += 1;
      setImmediate(countTurns);
    };
    setImmediate(countTurns);
    await batcher.flush();
    draining = false;
    expect(writes).toStrictEqual([128, 128, 128, 128, 128, 128, 128, 104]);
    expect(turnsBetween).toBeGreaterThanOrEqual(7);
    expect(afterFlushes).toBe(1);
    await batcher.close();
  });

  it("flush writes what was recorded before it even while a drain that began earlier is under way", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const writes: number[] = [];
    const batcher = createEventBatcher({
      batchSize: 10,
      flushIntervalMs: 3_600_000,
      async write(batch) {
        writes.push(batch.length);
        if (writes.length === 1) await gate;
      },
    });
    for (let i = 0; i < 10; i++) batcher.record(event);
    const first = batcher.flush(); // takes the 10 and waits at the gate
    for (let i = 0; i < 5; i++) batcher.record(event);
    const second = batcher.flush();
    release();
    await Promise.all([first, second]);
    expect(writes).toStrictEqual([10, 5]);
    expect(batcher.stats()).toMatchObject({ written: 15, buffered: 0 });
    await batcher.close();
  });
});
