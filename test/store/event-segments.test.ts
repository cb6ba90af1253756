import { describe, expect, it, vi } from "vitest";
import { decodeEvent, encodeAnyEvent, encodeEvent } from "../../src/store/embedded/event-segments.js";
import type { VerificationEvent } from "../../src/store/ports/events.js";

// A seeded generator, so a failure names an event that can be built again.
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const ALPHABET = ["a", "Z", "0", "_", "-", " ", "é", "✓", "\"", "\\", "\n", "\u0001", "\u007f", "😀", "\ud800", "\udc00", "/"];
const NUMBERS = [0, -0, 1, 3, 0.1 + 0.2, 1e21, 1e-7, -5, 1_700_002_800_000, 2 ** 53, Number.NaN, Infinity, -Infinity, 123.456];

function randomEvent(next: () => number): VerificationEvent {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const text = () => (next() < 0.6 ? `key_${Math.floor(next() * 1e9).toString(36)}` : Array.from({ length: Math.floor(next() * 6) }, () => pick(ALPHABET)).join(""));
  const event: VerificationEvent = {
    time: next() < 0.8 ? 1_700_002_800_000 + Math.floor(next() * 1e6) : pick(NUMBERS),
    workspaceId: text(), apiId: text(), keyId: text(), outcome: pick(["VALID", "RATE_LIMITED", text()]),
    tags: Array.from({ length: Math.floor(next() * 3) }, text),
    creditsSpent: next() < 0.8 ? Math.floor(next() * 5) : pick(NUMBERS),
    // Whole microseconds, as verifications record them (written digit by digit), or any number.
    latencyMs: next() < 0.5 ? Math.round(next() * (next() < 0.9 ? 1e5 : 1e13)) / 1000 : next() < 0.6 ? next() * 10 : pick(NUMBERS),
    requestId: text(),
  };
  if (next() < 0.5) event.identityId = text();
  else if (next() < 0.5) event.identityId = undefined;
  if (next() < 0.05) delete (event as Partial<VerificationEvent>).tags;
  return event;
}

describe("event segment lines", () => {
  it("encodeEvent writes exactly the bytes JSON.stringify writes, on 20 000 random events of every shape", () => {
    const next = random(23);
    for (let i = 0; i < 20_000; i++) {
      const event = randomEvent(next);
      expect(encodeEvent(event), JSON.stringify(event)).toBe(encodeAnyEvent(event));
    }
  });

  it("encodeEvent stays exact when consecutive events share some of their key's strings and not others", () => {
    // The key part of a line is reused while workspace, api, key and identity repeat: every partial repeat must miss.
    const next = random(7);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const values = ["ws_1", "api_1", "key_1", "id_1", "x\"y", "é✓", "\ud800", ""];
    for (let i = 0; i < 20_000; i++) {
      const event: VerificationEvent = {
        time: 1_700_002_800_000 + i, workspaceId: pick(values), apiId: pick(values.slice(0, 3)), keyId: pick(values.slice(1, 5)),
        identityId: pick([undefined, "id_1", "id\n2"]), outcome: pick(["VALID", "RATE_LIMITED", "x\"y"]), tags: [],
        creditsSpent: 1, latencyMs: 0.5, requestId: pick(["req_1", "req\\2"]),
      };
      expect(encodeEvent(event), JSON.stringify(event)).toBe(encodeAnyEvent(event));
    }
  });

  it("writes the first line of a process right when its key is all empty strings, the reused part's starting value", async () => {
    vi.resetModules();
    const fresh = await import("../../src/store/embedded/event-segments.js");
    const empty: VerificationEvent = { time: 1, workspaceId: "", apiId: "", keyId: "", outcome: "VALID", tags: [], creditsSpent: 0, latencyMs: 0, requestId: "" };
    expect(fresh.encodeEvent(empty)).toBe(encodeAnyEvent(empty));
  });

  it("a recorded event's line reads back as the event, identity absent when it had none", () => {
    const event: VerificationEvent = {
      time: 1_700_002_800_123, workspaceId: "ws_1", apiId: "api_1", keyId: "key_1", outcome: "VALID",
      tags: ["path=/a", "eu"], creditsSpent: 2, latencyMs: 0.375, requestId: "req_1ChUivdqnQ9YPEJ2zUssyw",
    };
    const line = encodeEvent({ ...event, identityId: undefined });
    expect(line).toBe(
      '{"time":1700002800123,"workspaceId":"ws_1","apiId":"api_1","keyId":"key_1","outcome":"VALID",' +
        '"tags":["path=/a","eu"],"creditsSpent":2,"latencyMs":0.375,"requestId":"req_1ChUivdqnQ9YPEJ2zUssyw"}\n',
    );
    expect(decodeEvent(line.trimEnd())).toStrictEqual(event);
  });

  it("an event JSON cannot hold (a cycle) still throws, so the writer drops it as before", () => {
    const tags: unknown[] = [];
    tags.push(tags);
    expect(() => encodeEvent({ ...randomEvent(random(1)), tags: tags as string[] })).toThrow();
  });
});
