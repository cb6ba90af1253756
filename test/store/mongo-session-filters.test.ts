import { describe, expect, it } from "vitest";
import { expiredSessionsFilter } from "../../src/store/mongo/dashboard-sessions.js";
import { collectionNames, documentIndexes } from "../../src/store/mongo/indexes.js";

describe("mongo dashboard sessions", () => {
  it("the expiry sweep matches sessions expired at or before now", () => {
    expect(expiredSessionsFilter(1_700_000_000_000)).toEqual({ expiresAt: { $lte: 1_700_000_000_000 } });
  });

  it("sessions are looked up by a unique hash index and swept by an expiry index", () => {
    const spec = documentIndexes().find((c) => c.collection === collectionNames.dashboardSessions);
    expect(spec?.indexes).toEqual([
      { name: "hash", key: { hash: 1 }, unique: true },
      { name: "expires_at", key: { expiresAt: 1 } },
    ]);
  });
});
