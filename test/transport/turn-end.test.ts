import { describe, expect, it } from "vitest";
import { atTurnEnd } from "../../src/turn-end.js";

const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe("atTurnEnd", () => {
  it("runs nothing in the current turn, then every store task before every respond task, each in queue order", async () => {
    const ran: string[] = [];
    atTurnEnd("respond", () => ran.push("respond 1"));
    atTurnEnd("store", () => ran.push("store 1"));
    atTurnEnd("respond", () => ran.push("respond 2"));
    atTurnEnd("store", () => ran.push("store 2"));
    await Promise.resolve();
    expect(ran).toEqual([]);
    await nextTurn();
    expect(ran).toEqual(["store 1", "store 2", "respond 1", "respond 2"]);
  });

  it("answers queued by the microtasks a store task starts still leave in the same turn", async () => {
    const ran: string[] = [];
    let committed!: () => void;
    const commit = new Promise<void>((resolve) => (committed = resolve));
    // A request awaiting the commit, several microtask hops deep, then queueing its answer.
    void commit.then(() => Promise.resolve()).then(() => atTurnEnd("respond", () => ran.push("answer")));
    atTurnEnd("store", () => {
      setImmediate(() => ran.push("next turn")); // an immediate queued now runs in the next turn
      committed();
    });
    atTurnEnd("respond", () => ran.push("earlier answer"));
    await nextTurn();
    await nextTurn();
    expect(ran).toEqual(["earlier answer", "answer", "next turn"]);
  });

  it("a task that throws does not stop the others of its batch", async () => {
    const ran: string[] = [];
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args[1]);
    try {
      atTurnEnd("respond", () => {
        throw new Error("boom");
      });
      atTurnEnd("respond", () => ran.push("after"));
      await nextTurn();
    } finally {
      console.error = original;
    }
    expect(ran).toEqual(["after"]);
    expect(errors).toEqual([new Error("boom")]);
  });

  it("work queued while a turn's tasks run gets a later turn", async () => {
    const ran: string[] = [];
    atTurnEnd("respond", () => {
      ran.push("first");
      atTurnEnd("store", () => ran.push("queued by first"));
    });
    await nextTurn();
    await nextTurn();
    expect(ran).toEqual(["first", "queued by first"]);
  });
});
