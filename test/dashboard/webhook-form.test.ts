import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENTS } from "../../src/domain/webhooks/events.js";
import { creditLevelsText, eventGroups, parseCreditLevels, webhookState } from "../../web/webhook-form.js";

describe("dashboard webhook form helpers (web/webhook-form.ts)", () => {
  it("groups the whole catalogue, each event once, usage signals first", () => {
    const groups = eventGroups();
    expect(groups[0]).toEqual({ title: "Usage signals", events: ["key.credits.low", "key.credits.exhausted", "key.expiring", "key.expired", "key.ratelimited", "ratelimit.exceeded"] });
    expect(groups[1]).toEqual({ title: "Endpoint", events: ["webhook.disabled"] });
    const listed = groups.flatMap((g) => g.events);
    expect(listed.length).toBe(new Set(listed).size);
    expect([...listed].sort()).toEqual([...WEBHOOK_EVENTS]);
    expect(groups.find((g) => g.title === "api changes")?.events).toEqual(["api.create", "api.delete", "api.update"]);
  });

  it("reads credit levels as remaining credits or percentages, separated by commas or spaces", () => {
    expect(parseCreditLevels(" 100, 10%  0 ")).toEqual({
      levels: [{ remaining: 100n }, { percent: 10 }, { remaining: 0n }],
    });
    expect(parseCreditLevels("")).toEqual({ levels: [] });
  });

  it("names the first entry that is neither a number nor a percentage", () => {
    const cases: [typed: string, named: string][] = [["-5", "-5"], ["1.5", "1.5"], ["ten", "ten"], ["5%x", "5%x"], ["10 %%", "%%"], ["1234567890123456", "1234567890123456"]];
    for (const [typed, named] of cases) {
      expect(parseCreditLevels(`100, ${typed}`)).toEqual({ error: `Credit level “${named}” is neither a number of credits (100) nor a percentage (10%).` });
    }
  });

  it("writes levels back as text and states in words", () => {
    expect(creditLevelsText([{ remaining: 100n }, { percent: 10 }])).toBe("100 credits, 10%");
    expect(webhookState({ enabled: true })).toEqual({ label: "active", tone: "ok" });
    expect(webhookState({ enabled: false, disabledReason: "paused" })).toEqual({ label: "paused", tone: "wait" });
    expect(webhookState({ enabled: false, disabledReason: "failing" })).toEqual({ label: "disabled: failing", tone: "off" });
  });
});
