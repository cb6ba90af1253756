/**
 * What an api's IP allow-list adds to a verification: working out the client address (peer, or a trusted proxy's
 * X-Forwarded-For) and matching it against a five-entry list. `npx tsx bench/ip-allow-list.ts`; a few seconds.
 */
import { clientAddress } from "../src/domain/client-address.js";
import { allowListOf, inRanges, parseAddressRanges } from "../src/domain/ip-allow-list.js";

const LIST = ["10.0.0.0/8", "192.168.0.0/16", "2001:db8::/32", "203.0.113.7", "::1"];
const parsed = parseAddressRanges(["::1", "10.0.0.0/8"]);
if ("error" in parsed) throw new Error("bad trusted proxies");
const trusted = parsed.ranges;
const ROUNDS = 200_000;

const cases: [string, () => boolean][] = [
  ["dual-stack IPv4 peer, no trusted proxy", () => inRanges(allowListOf(LIST)!, clientAddress({ peer: "::ffff:127.0.0.1" }, []))],
  ["trusted proxy, X-Forwarded-For of 2 hops", () => inRanges(allowListOf(LIST)!, clientAddress({ peer: "::1", xForwardedFor: "198.51.100.7, 10.1.1.1" }, trusted))],
];
for (const [name, check] of cases) {
  for (let i = 0; i < ROUNDS / 10; i++) check();
  const started = performance.now();
  for (let i = 0; i < ROUNDS; i++) check();
  console.log(`${name}: ${(((performance.now() - started) * 1000) / ROUNDS).toFixed(2)} µs per check`);
}
