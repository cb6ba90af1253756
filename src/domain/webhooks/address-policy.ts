import ipaddr from "ipaddr.js";

/**
 * Whether a webhook may connect to `address` (an IP literal as DNS resolved it): only globally routable unicast.
 * Refused: loopback, private (RFC 1918), link-local, unspecified, CGNAT (100.64/10), unique-local IPv6 (fc00::/7),
 * multicast, broadcast and reserved ranges, and IPv4-mapped IPv6 forms of any of them, so no DNS answer can point a
 * webhook at the service's own network.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === "unicast";
}
