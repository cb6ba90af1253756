import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { crossedLevels, percentBase } from "../../src/domain/webhooks/credit-crossing.js";
import { isWebhookEvent, WEBHOOK_EVENTS } from "../../src/domain/webhooks/events.js";
import { MAX_ATTEMPTS, nextAttemptDelay } from "../../src/domain/webhooks/retry-schedule.js";
import { newSecret, signatureHeader } from "../../src/domain/webhooks/signature.js";
import { eventViolations, thresholdViolations, urlProblem } from "../../src/domain/webhooks/webhook-input.js";
import { AUDIT_ACTIONS } from "../../src/domain/audit-actions.js";

describe("crossedLevels", () => {
  it("reports a level once, to the one step that took the balance from above it to at or below it", () => {
    const levels = [{ remaining: 10 }, { percent: 50 }];
    expect(crossedLevels(levels, { after: 11, cost: 1, base: 100 })).toEqual([]);
    expect(crossedLevels(levels, { after: 10, cost: 1, base: 100 })).toEqual([10]);
    expect(crossedLevels(levels, { after: 9, cost: 1, base: 100 })).toEqual([]);
    expect(crossedLevels(levels, { after: 50, cost: 1, base: 100 })).toEqual([50]);
    // One big step crosses both.
    expect(crossedLevels(levels, { after: 5, cost: 60, base: 100 })).toEqual([50, 10]);
    // Percent rounds down; without a base (no refill) a percent level never fires.
    expect(crossedLevels([{ percent: 33 }], { after: 3, cost: 1, base: 10 })).toEqual([3]);
    expect(crossedLevels([{ percent: 33 }], { after: 3, cost: 100 })).toEqual([]);
    // Cost 0 moves nothing.
    expect(crossedLevels(levels, { after: 10, cost: 0, base: 100 })).toEqual([]);
  });
});

describe("percentBase", () => {
  it("is the refill amount when there is one, else the credits last given, else nothing", () => {
    expect(percentBase({ refill: { amount: 100 }, base: 40 })).toBe(100);
    expect(percentBase({ base: 40 })).toBe(40);
    expect(percentBase({ base: 0 })).toBe(0);
    expect(percentBase({})).toBeUndefined();
    expect(percentBase(undefined)).toBeUndefined();
  });
});

describe("nextAttemptDelay", () => {
  it("backs off over about a day, scaled and jittered by at most 20 %, then gives up", () => {
    const plain = Array.from({ length: MAX_ATTEMPTS }, (_, i) => nextAttemptDelay(i + 1, { scale: 1, random: 0.5 }));
    expect(plain).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, undefined]);
    expect(plain.slice(0, -1).reduce((a, b) => a! + b!, 0)).toBeGreaterThan(86_400_000 * 0.9);
    expect(nextAttemptDelay(1, { scale: 1, random: 0 })).toBe(4_000);
    expect(nextAttemptDelay(1, { scale: 1, random: 0.999999 })).toBe(6_000);
    expect(nextAttemptDelay(2, { scale: 0.001, random: 0.5 })).toBe(300);
  });
});

describe("webhook input", () => {
  it("accepts http and https urls only, without credentials", () => {
    expect(urlProblem("https://example.com/hook?x=1")).toBeUndefined();
    expect(urlProblem("http://10.0.0.1:8080/")).toBeUndefined(); // where it points is judged at connect time
    expect(urlProblem("ftp://example.com")).toContain("only http and https");
    expect(urlProblem("https://u:p@example.com")).toContain("user name or password");
    expect(urlProblem("https://u@example.com")).toContain("user name or password");
    expect(urlProblem("example.com/hook")).toBe("is not an absolute URL");
  });

  it("knows every audit action and the usage events; names unknown and repeated ones", () => {
    for (const action of Object.values(AUDIT_ACTIONS)) expect(isWebhookEvent(action)).toBe(true);
    for (const event of ["key.credits.low", "key.credits.exhausted", "key.expiring", "key.expired", "key.ratelimited", "ratelimit.exceeded"]) {
      expect(WEBHOOK_EVENTS).toContain(event);
    }
    expect(isWebhookEvent("webhook.test")).toBe(false);
    expect(eventViolations(["key.create", "nope", "key.create"])).toEqual([
      { location: "events[1]", message: 'unknown event type "nope"' },
      { location: "events[2]", message: '"key.create" is listed twice' },
    ]);
  });

  it("wants exactly one level per threshold, percent 1 to 99", () => {
    expect(thresholdViolations([{ remaining: 0 }, { percent: 1 }, { percent: 99 }])).toEqual([]);
    expect(thresholdViolations([{}, { remaining: 1, percent: 5 }, { percent: 100 }, { remaining: -1 }, { remaining: 5 }, { remaining: 5 }]).map((v) => v.location)).toEqual([
      "thresholds.credits[0]", "thresholds.credits[1]", "thresholds.credits[2].percent", "thresholds.credits[3].remaining", "thresholds.credits[5]",
    ]);
  });
});

describe("signatureHeader", () => {
  it("signs as Standard Webhooks does: standardwebhooks verifies each secret of a rotation's header", () => {
    let n = 0;
    const random = (size: number) => Uint8Array.from({ length: size }, () => n++ % 256);
    const [a, b] = [newSecret(random), newSecret(random)];
    expect(a).toMatch(/^whsec_/);
    const timestamp = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ type: "key.create", timestamp: "2030-01-01T00:00:00.000Z", data: { x: 1 } });
    const header = signatureHeader([a, b], "msg_1", timestamp, body);
    expect(header.split(" ")).toHaveLength(2);
    const headers = { "webhook-id": "msg_1", "webhook-timestamp": String(timestamp), "webhook-signature": header };
    for (const secret of [a, b]) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret(random)).verify(body, headers)).toThrow();
    expect(() => new Webhook(a).verify(body + " ", headers)).toThrow();
  });
});
