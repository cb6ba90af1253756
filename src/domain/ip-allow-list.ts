import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** A network and its prefix length; a single address is a /32 (IPv4) or /128 (IPv6). */
export type AddressRange = readonly [Address, number];

/**
 * One allow-list or trusted-proxy entry: an IPv4 address in four decimal parts, an IPv6 address, or either as a CIDR
 * range. Undefined for anything else (leading zeros, `0x7f.1`, zone ids, spaces, prefixes out of range), so a typo is
 * refused instead of matching something unexpected. IPv4-mapped IPv6 (`::ffff:1.2.3.4`, `::ffff:10.0.0.0/104`) is
 * kept as its IPv4 form: Node reports IPv4 clients of a dual-stack socket that way, and both must match alike.
 */
export function parseAddressRange(entry: string): AddressRange | undefined {
  if (entry.includes("%")) return undefined;
  if (entry.includes("/")) {
    if (!entry.includes(":")) return ipaddr.IPv4.isValidCIDRFourPartDecimal(entry) ? ipaddr.IPv4.parseCIDR(entry) : undefined;
    if (!ipaddr.IPv6.isValidCIDR(entry)) return undefined;
    const [network, bits] = ipaddr.IPv6.parseCIDR(entry);
    return network.isIPv4MappedAddress() && bits >= 96 ? [network.toIPv4Address(), bits - 96] : [network, bits];
  }
  const address = parseAddress(entry);
  return address && [address, address.kind() === "ipv4" ? 32 : 128];
}

/** Dotted decimal, four parts: anything else skips ipaddr.js's IPv4 check, which throws inside (about 20 µs). */
const DOTTED = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const MEMO_SIZE = 1024;
const memo = new Map<string, Address | null>();

/**
 * A single client address as a socket or a forwarding header reports it; an IPv6 zone id (`fe80::1%eth0`) is
 * dropped and IPv4-mapped IPv6 becomes IPv4. Undefined when it is not an address. Verification asks this for every
 * key of an allow-listed api, mostly for the same few peers: the last MEMO_SIZE answers are kept (parsed addresses
 * are never changed), and the memo starts over when full, so no client can grow it.
 */
export function parseAddress(text: string): Address | undefined {
  const known = memo.get(text);
  if (known !== undefined) return known ?? undefined;
  const address = parseUncached(text);
  if (memo.size >= MEMO_SIZE) memo.clear();
  memo.set(text, address ?? null);
  return address;
}

function parseUncached(text: string): Address | undefined {
  if (!text.includes(":")) return DOTTED.test(text) && ipaddr.IPv4.isValidFourPartDecimal(text) ? ipaddr.IPv4.parse(text) : undefined;
  let address: ipaddr.IPv6;
  try {
    address = ipaddr.IPv6.parse(text);
  } catch {
    return undefined;
  }
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  return address.zoneId === undefined ? address : new ipaddr.IPv6(address.parts);
}

/**
 * Parses a whole list (an api's `ipWhitelist`, KEYWARD_TRUSTED_PROXIES): the ranges, or the first entry that is
 * not an address or CIDR range with its index, for a 400 (or a start-up error) that names it.
 */
export function parseAddressRanges(entries: readonly string[]): { ranges: AddressRange[] } | { error: { index: number; entry: string } } {
  const ranges: AddressRange[] = [];
  for (let index = 0; index < entries.length; index++) {
    const range = parseAddressRange(entries[index]);
    if (!range) return { error: { index, entry: entries[index] } };
    ranges.push(range);
  }
  return { ranges };
}

/** Whether `address` (parsed, or as text) lies in one of `ranges`; an address that does not parse lies in none. */
export function inRanges(ranges: readonly AddressRange[], address: Address | string | undefined): boolean {
  const parsed = typeof address === "string" ? parseAddress(address) : address;
  if (!parsed) return false;
  for (const [network, bits] of ranges) {
    if (network.kind() === parsed.kind() && parsed.match(network, bits)) return true;
  }
  return false;
}

const parsedLists = new WeakMap<readonly string[], readonly AddressRange[]>();

/**
 * The ranges of a stored allow-list, parsed once per list object (the key cache keeps the api record, so a
 * verification does not parse it again). Entries were checked when written; one that does not parse anyway (a record
 * edited by hand) matches nothing, so a list never fails open. Undefined when the list is absent or empty: any address.
 */
export function allowListOf(entries: readonly string[] | undefined): readonly AddressRange[] | undefined {
  if (!entries || entries.length === 0) return undefined;
  let ranges = parsedLists.get(entries);
  if (!ranges) {
    ranges = entries.map(parseAddressRange).filter((range): range is AddressRange => range !== undefined);
    parsedLists.set(entries, ranges);
  }
  return ranges;
}
