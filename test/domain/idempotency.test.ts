import { describe, expect, it } from "vitest";
import { KeywardError } from "../../src/domain/errors.js";
import { idempotencyConflict, idempotencyKeyOf, requestFingerprint } from "../../src/domain/idempotency.js";
import { readConfig } from "../../src/config.js";

describe("idempotencyKeyOf", () => {
  it("takes the field, else the header; undefined when neither is sent", () => {
    expect(idempotencyKeyOf("a", undefined)).toBe("a");
    expect(idempotencyKeyOf(undefined, "b")).toBe("b");
    expect(idempotencyKeyOf(undefined, ["c"])).toBe("c");
    expect(idempotencyKeyOf("same", "same")).toBe("same");
    expect(idempotencyKeyOf(undefined, undefined)).toBeUndefined();
  });

  it("accepts 1 to 255 printable ASCII characters, spaces and punctuation included", () => {
    for (const good of ["x", " ", "~", "order 42/retry:1 {a}", "k".repeat(255)]) expect(idempotencyKeyOf(good, undefined)).toBe(good);
  });

  it("refuses anything else as invalid on the idempotencyKey field, never echoing the value", () => {
    const cases: [string | undefined, string | string[] | undefined][] = [
      ["", undefined], ["k".repeat(256), undefined], ["caf\u00e9", undefined], ["tab\there", undefined], ["nl\n", undefined],
      [undefined, "\u007f"], [undefined, ["a", "b"]], ["a", "b"],
    ];
    for (const [field, header] of cases) {
      let error: unknown;
      try {
        idempotencyKeyOf(field, header);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(KeywardError);
      expect(error).toMatchObject({ kind: "invalid", violations: [{ location: "idempotencyKey", field: "idempotency_key" }] });
      if (field && field.length > 3) expect((error as Error).message).not.toContain(field);
    }
  });
});

describe("requestFingerprint", () => {
  it("is equal for equal requests and differs when any part differs", () => {
    const base = ["v2", "hash", [1, [], null, ["t"]]];
    expect(requestFingerprint(base)).toBe(requestFingerprint(structuredClone(base)));
    for (const other of [["v1", "hash", [1, [], null, ["t"]]], ["v2", "hasH", [1, [], null, ["t"]]], ["v2", "hash", [2, [], null, ["t"]]],
      ["v2", "hash", [1, [], "p", ["t"]]], ["v2", "hash", [1, [], null, ["t", "u"]]]]) {
      expect(requestFingerprint(other)).not.toBe(requestFingerprint(base));
    }
    expect(requestFingerprint(base)).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });
});

describe("idempotencyConflict", () => {
  it("is its own kind: 409 on REST like conflict, FAILED_PRECONDITION on RPC", () => {
    expect(idempotencyConflict()).toMatchObject({ kind: "idempotency_conflict" });
  });
});

describe("KEYWARD_IDEMPOTENCY_WINDOW_SECONDS", () => {
  it("defaults to one hour and takes whole seconds from 1; anything else stops start-up with a clear message", () => {
    expect(readConfig({}).idempotencyWindowMs).toBe(3_600_000);
    expect(readConfig({ KEYWARD_IDEMPOTENCY_WINDOW_SECONDS: "86400" }).idempotencyWindowMs).toBe(86_400_000);
    for (const bad of ["0", "-1", "1.5", "hour"]) {
      expect(() => readConfig({ KEYWARD_IDEMPOTENCY_WINDOW_SECONDS: bad })).toThrow(/KEYWARD_IDEMPOTENCY_WINDOW_SECONDS must be a whole number of seconds/);
    }
  });
});
