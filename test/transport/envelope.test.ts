import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { frame, frameInPlace, FRAME_HEADER_BYTES, unframeUnary } from "../../src/transport/envelope.js";

const MAX = 64;
const message = Buffer.from("hello, frame");
const header = (flags: number, length: number) => Buffer.from([flags, length >>> 24, (length >>> 16) & 255, (length >>> 8) & 255, length & 255]);

describe("envelope: framing", () => {
  it("frames a message as flag 0, 4-byte big-endian length, message; and reads it back", () => {
    const framed = frame(message, "identity");
    expect([...framed.subarray(0, 5)]).toEqual([0, 0, 0, 0, message.length]);
    expect(framed.subarray(5).toString()).toBe("hello, frame");
    expect(unframeUnary(framed, { encoding: "identity", maxBytes: MAX })).toEqual({ ok: true, message: message });
  });

  it("gzip frames carry flag 1 and the compressed length, and inflate back to the message", () => {
    const framed = frame(message, "gzip");
    expect(framed[0]).toBe(1);
    expect(framed.readUInt32BE(1)).toBe(framed.length - 5);
    const read = unframeUnary(framed, { encoding: "gzip", maxBytes: MAX });
    expect(read.ok && Buffer.from(read.message).toString()).toBe("hello, frame");
  });

  it("frameInPlace writes the same header as frame into the bytes reserved in front of a message", () => {
    for (const size of [0, 1, 255, 256, 70_000]) {
      const body = Buffer.alloc(size, 7);
      const reserved = Buffer.concat([Buffer.alloc(FRAME_HEADER_BYTES, 0xff), body]);
      expect(Buffer.from(frameInPlace(reserved))).toEqual(frame(body, "identity"));
    }
  });

  it("an empty message is a frame of five bytes", () => {
    const framed = frame(new Uint8Array(0), "identity");
    expect([...framed]).toEqual([0, 0, 0, 0, 0]);
    expect(unframeUnary(framed, { encoding: "identity", maxBytes: MAX })).toEqual({ ok: true, message: Buffer.alloc(0) });
  });

  const framed = frame(message, "identity");
  const bad: Array<[string, Buffer, Partial<{ encoding: "identity" | "gzip" }>, string, string]> = [
    ["no bytes", Buffer.alloc(0), {}, "malformed", "the request has no message"],
    ["a header cut short", framed.subarray(0, 4), {}, "malformed", "the request ends inside a frame header"],
    ["a message cut short", framed.subarray(0, framed.length - 1), {}, "malformed", "the request ends inside a message"],
    ["bytes after the message", Buffer.concat([framed, Buffer.from([0])]), {}, "malformed", "a unary request carries exactly one message"],
    ["two frames", Buffer.concat([framed, framed]), {}, "malformed", "a unary request carries exactly one message"],
    ["reserved flag bits", Buffer.concat([header(0x80, message.length), message]), {}, "malformed", "reserved frame flags set (0x80)"],
    ["the compressed flag without grpc-encoding", Buffer.concat([header(1, message.length), message]), {}, "malformed", "a compressed message arrived without grpc-encoding"],
    ["the compressed flag on bytes that are not gzip", Buffer.concat([header(1, message.length), message]), { encoding: "gzip" }, "malformed", "the message is not valid gzip"],
    ["a declared length past the limit", header(0, MAX + 1), {}, "too_large", `message size ${MAX + 1} is larger than the limit of ${MAX} bytes`],
  ];
  for (const [name, body, options, reason, detail] of bad) {
    it(`refuses ${name} (${reason})`, () => {
      expect(unframeUnary(body, { encoding: "identity", maxBytes: MAX, ...options })).toEqual({ ok: false, reason, detail });
    });
  }

  it("takes a message of exactly the limit, plain or inflated", () => {
    const full = Buffer.alloc(MAX, 7);
    expect(unframeUnary(frame(full, "identity"), { encoding: "identity", maxBytes: MAX })).toEqual({ ok: true, message: full });
    expect(unframeUnary(frame(full, "gzip"), { encoding: "gzip", maxBytes: MAX })).toEqual({ ok: true, message: full });
  });

  it("stops inflating at the limit: a small gzip bomb is too large, not a memory spike", () => {
    const bomb = gzipSync(Buffer.alloc(10 * MAX));
    expect(bomb.length).toBeLessThan(MAX);
    const body = Buffer.concat([header(1, bomb.length), bomb]);
    expect(unframeUnary(body, { encoding: "gzip", maxBytes: MAX })).toEqual({
      ok: false, reason: "too_large", detail: `the inflated message is larger than the limit of ${MAX} bytes`,
    });
  });
});
