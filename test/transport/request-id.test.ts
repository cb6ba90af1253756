import { describe, expect, it } from "vitest";
import { BASE58_ALPHABET } from "../../src/domain/base58.js";
import { newRequestId } from "../../src/transport/request-id.js";

describe("newRequestId", () => {
  it("gives distinct req_ ids of 22 base58 characters, across refills of its random pool", () => {
    // A 4096-byte pool, 10 bytes an id: 3,000 ids draw it several times over, each id from bytes of its own.
    const ids = Array.from({ length: 3_000 }, () => newRequestId());
    const shape = new RegExp(`^req_[${BASE58_ALPHABET}]{22}$`);
    for (const id of ids) expect(id).toMatch(shape);
    expect(new Set(ids).size).toBe(ids.length);
    // Ids of one millisecond share the time digits and differ in the random ones.
    expect(new Set(ids.map((id) => id.slice(-10))).size).toBe(ids.length);
  });
});
