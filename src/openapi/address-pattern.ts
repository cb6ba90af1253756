/**
 * The IP allow-list entries updateApi accepts (domain/ip-allow-list.ts: IPv4 in four decimal parts, IPv6 in its
 * text forms, each optionally a CIDR range) as one JSON Schema pattern, so the document promises what the server
 * takes. IPv4-mapped IPv6 written with a dotted tail (`::ffff:1.2.3.4`) is accepted too but left out of the pattern.
 */
const OCTET = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const IPV4 = `(?:${OCTET}\\.){3}${OCTET}`;
const H = "[0-9a-fA-F]{1,4}";
const IPV6 = [
  `(?:${H}:){7}${H}`,
  `(?:${H}:){1,7}:`,
  `(?:${H}:){1,6}:${H}`,
  `(?:${H}:){1,5}(?::${H}){1,2}`,
  `(?:${H}:){1,4}(?::${H}){1,3}`,
  `(?:${H}:){1,3}(?::${H}){1,4}`,
  `(?:${H}:){1,2}(?::${H}){1,5}`,
  `${H}:(?::${H}){1,6}`,
  `:(?:(?::${H}){1,7}|:)`,
].join("|");

/** `1.2.3.4`, `10.0.0.0/8`, `::1`, `2001:db8::/32`. */
export const ADDRESS_RANGE_PATTERN = `^(?:${IPV4}(?:/(?:3[0-2]|[12]?\\d))?|(?:${IPV6})(?:/(?:12[0-8]|1[01]\\d|[1-9]?\\d))?)$`;
