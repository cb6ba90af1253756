import { describe, expect, it } from "vitest";
import { useKeyward } from "../../support/use-keyward.js";

const T0 = Date.UTC(2030, 0, 1);
const DAY = 86_400_000;

describe("analytics.getVerifications bad input", () => {
  const harness = useKeyward();
  const send = (body: unknown) => harness.rest.v2("analytics.getVerifications", body, harness.keyward.rootKey);

  const cases: { what: string; body: Record<string, unknown>; location: string; detail: RegExp }[] = [
    { what: "end before start", body: { start: T0, end: T0 - 1, granularity: "hour" }, location: "body.end", detail: /end .* must be after start/ },
    { what: "end equal to start", body: { start: T0, end: T0, granularity: "day" }, location: "body.end", detail: /must be after start/ },
    { what: "an unknown granularity", body: { start: T0, end: T0 + DAY, granularity: "week" }, location: "body.granularity", detail: /granularity/ },
    { what: "too many buckets (3 days of minutes)", body: { start: T0, end: T0 + 3 * DAY, granularity: "minute" }, location: "body.granularity", detail: /4320 minute buckets; at most 2000/ },
    { what: "a missing start", body: { end: T0, granularity: "day" }, location: "body.start", detail: /start/ },
    { what: "an unknown group", body: { start: T0, end: T0 + DAY, granularity: "day", groupBy: ["country"] }, location: "body.groupBy[0]", detail: /groupBy/ },
    { what: "an unknown outcome", body: { start: T0, end: T0 + DAY, granularity: "day", outcomes: ["NOT_FOUND"] }, location: "body.outcomes[0]", detail: /outcomes/ },
    { what: "a limit of 0", body: { start: T0, end: T0 + DAY, granularity: "day", limit: 0 }, location: "body.limit", detail: /limit/ },
    { what: "an unknown field (SQL)", body: { query: "SELECT count(*) FROM verifications" }, location: "body.query", detail: /query/ },
  ];

  for (const { what, body, location, detail } of cases) {
    it(`${what} is 400 naming ${location}`, async () => {
      const response = await send(body);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ status: 400, detail: expect.stringMatching(detail) });
      expect(response.body.error.errors.map((e: { location: string }) => e.location)).toContain(location);
    });
  }
});
