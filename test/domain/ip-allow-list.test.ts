import { describe, expect, it } from "vitest";
import { clientAddress } from "../../src/domain/client-address.js";
import { allowListOf, inRanges, parseAddressRanges } from "../../src/domain/ip-allow-list.js";
import { checkBeforeCounters } from "../../src/domain/verification.js";

const ranges = (entries: string[]) => {
  const parsed = parseAddressRanges(entries);
  if ("error" in parsed) throw new Error(`bad fixture ${parsed.error.entry}`);
  return parsed.ranges;
};

describe("IP allow-list entries", () => {
  it("takes IPv4 and IPv6 addresses and CIDR ranges", () => {
    expect(parseAddressRanges(["1.2.3.4", "10.0.0.0/8", "::1", "2001:db8::/32", "::ffff:1.2.3.4", "0.0.0.0/0", "::/0"])).toMatchObject({
      ranges: { length: 7 },
    });
  });

  it("refuses anything else, naming the first bad entry by index", () => {
    for (const bad of ["1.2.3", "01.2.3.4", "0x7f.0.0.1", "1.2.3.4/33", "::1/129", " 1.2.3.4", "fe80::1%eth0", "localhost", "1.2.3.4/", "*"]) {
      expect(parseAddressRanges(["10.0.0.1", bad])).toEqual({ error: { index: 1, entry: bad } });
    }
  });

  it("matches addresses and ranges of their own family only", () => {
    const list = ranges(["192.168.1.0/24", "2001:db8::/32", "10.1.2.3"]);
    expect(["192.168.1.0", "192.168.1.255", "2001:db8::1", "2001:db8:ffff::9", "10.1.2.3"].map((a) => inRanges(list, a))).toEqual([true, true, true, true, true]);
    expect(["192.168.2.1", "2001:db9::1", "10.1.2.4", "::1", "garbage", undefined].map((a) => inRanges(list, a))).toEqual([false, false, false, false, false, false]);
  });

  it("an IPv4-mapped IPv6 client (a dual-stack socket's view of IPv4) matches the IPv4 entry, and a mapped entry matches IPv4 clients", () => {
    expect(inRanges(ranges(["1.2.3.4"]), "::ffff:1.2.3.4")).toBe(true);
    expect(inRanges(ranges(["10.0.0.0/8"]), "::ffff:10.9.8.7")).toBe(true);
    expect(inRanges(ranges(["::ffff:1.2.3.4"]), "1.2.3.4")).toBe(true);
    expect(inRanges(ranges(["::ffff:10.0.0.0/104"]), "10.200.0.1")).toBe(true);
    expect(inRanges(ranges(["::ffff:10.0.0.0/104"]), "11.0.0.1")).toBe(false);
  });

  it("a stored list is parsed once per list object; an entry that no longer parses matches nothing (never fails open)", () => {
    const stored = ["10.0.0.0/8", "not an address"];
    expect(allowListOf(stored)).toBe(allowListOf(stored));
    expect(allowListOf(stored)).toHaveLength(1);
    expect(allowListOf(["nonsense"])).toEqual([]);
    expect(allowListOf([])).toBeUndefined();
    expect(allowListOf(undefined)).toBeUndefined();
  });

  it("verification answers FORBIDDEN from outside the list, after EXPIRED and before INSUFFICIENT_PERMISSIONS", () => {
    const key = { enabled: true, apiId: "api_1" };
    const base = { key, now: 100, permissionsSatisfied: false, ipAllowList: ranges(["10.0.0.0/8"]) };
    expect(checkBeforeCounters({ ...base, clientIp: "11.0.0.1" })).toBe("FORBIDDEN");
    expect(checkBeforeCounters({ ...base, clientIp: undefined })).toBe("FORBIDDEN");
    expect(checkBeforeCounters({ ...base, clientIp: "10.0.0.1" })).toBe("INSUFFICIENT_PERMISSIONS");
    expect(checkBeforeCounters({ ...base, key: { ...key, expires: 50 }, clientIp: "11.0.0.1" })).toBe("EXPIRED");
    expect(checkBeforeCounters({ ...base, ipAllowList: undefined, permissionsSatisfied: true, clientIp: undefined })).toBeUndefined();
  });
});

describe("clientAddress", () => {
  const trusted = ranges(["10.0.0.0/8", "fd00::/8"]);

  it("is the peer when no proxy is trusted or the peer is not one, whatever the headers claim", () => {
    const spoofed = { forwarded: "for=9.9.9.9", xForwardedFor: "9.9.9.9" };
    expect(clientAddress({ peer: "10.0.0.5", ...spoofed }, [])).toBe("10.0.0.5");
    expect(clientAddress({ peer: "203.0.113.7", ...spoofed }, trusted)).toBe("203.0.113.7");
    expect(clientAddress({ peer: "::ffff:203.0.113.7", ...spoofed }, trusted)).toBe("203.0.113.7");
    expect(clientAddress({ peer: undefined, ...spoofed }, trusted)).toBeUndefined();
  });

  it("behind a trusted proxy, the right-most hop of X-Forwarded-For that is not a trusted proxy", () => {
    expect(clientAddress({ peer: "10.0.0.5", xForwardedFor: "9.9.9.9, 198.51.100.2, 10.1.1.1" }, trusted)).toBe("198.51.100.2");
    expect(clientAddress({ peer: "10.0.0.5", xForwardedFor: ["9.9.9.9", "198.51.100.2:5555"] }, trusted)).toBe("198.51.100.2");
    expect(clientAddress({ peer: "fd00::1", xForwardedFor: "2001:db8::7" }, trusted)).toBe("2001:db8::7");
    expect(clientAddress({ peer: "10.0.0.5", xForwardedFor: "10.9.9.9, 10.1.1.1" }, trusted)).toBe("10.9.9.9");
    expect(clientAddress({ peer: "10.0.0.5" }, trusted)).toBe("10.0.0.5");
    expect(clientAddress({ peer: "10.0.0.5", xForwardedFor: "  " }, trusted)).toBe("10.0.0.5");
  });

  it("reads Forwarded's for= parameters (quoted, bracketed IPv6 with port) and prefers them to X-Forwarded-For", () => {
    const forwarded = 'for=9.9.9.9;proto=http, For="[2001:db8:cafe::17]:4711";by=10.0.0.5';
    expect(clientAddress({ peer: "10.0.0.5", forwarded, xForwardedFor: "198.51.100.2" }, trusted)).toBe("2001:db8:cafe::17");
    expect(clientAddress({ peer: "10.0.0.5", forwarded: "for=192.0.2.60:80" }, trusted)).toBe("192.0.2.60");
  });

  it("an unknown or unparsable right-most untrusted hop makes the client unknown", () => {
    expect(clientAddress({ peer: "10.0.0.5", forwarded: "for=unknown" }, trusted)).toBeUndefined();
    expect(clientAddress({ peer: "10.0.0.5", forwarded: "for=_hidden, for=10.0.0.9" }, trusted)).toBeUndefined();
    expect(clientAddress({ peer: "10.0.0.5", xForwardedFor: "1.2.3.4, nonsense" }, trusted)).toBeUndefined();
    expect(clientAddress({ peer: "10.0.0.5", forwarded: "proto=https" }, trusted)).toBeUndefined();
  });
});
