import { inRanges, parseAddress, type AddressRange } from "./ip-allow-list.js";

/** What a request says about where it came from: the connection's peer and the forwarding headers as received. */
export interface ForwardingView {
  peer: string | undefined;
  forwarded?: string | string[];
  xForwardedFor?: string | string[];
}

/**
 * The client address an IP allow-list is checked against. The connection's peer, unless that peer is one of the
 * `trusted` proxies (KEYWARD_TRUSTED_PROXIES) and the request carries a forwarding chain: then the right-most hop of
 * the chain that is not itself a trusted proxy (hops further left were written by the client or by untrusted
 * proxies and prove nothing). `Forwarded` (RFC 7239, its `for=` parameters) wins over `X-Forwarded-For` when both
 * are present. A right-most untrusted hop that is no address (`unknown`, an obfuscated `_id`, garbage) gives
 * undefined: the client is unknown, and an allow-list lets it through nowhere. A chain of trusted proxies only gives
 * its left-most hop. A peer that is not trusted is the answer whatever its headers say, so spoofing them from outside
 * changes nothing. Returns the address in canonical form (IPv4-mapped IPv6 as IPv4).
 */
export function clientAddress(view: ForwardingView, trusted: readonly AddressRange[]): string | undefined {
  const peer = view.peer === undefined ? undefined : parseAddress(view.peer);
  if (!peer) return undefined;
  if (trusted.length === 0 || !inRanges(trusted, peer)) return peer.toString();
  const chain = forwardedChain(view);
  if (chain.length === 0) return peer.toString();
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = chain[i];
    if (!hop) return undefined;
    if (!inRanges(trusted, hop)) return hop.toString();
  }
  return chain[0]?.toString();
}

type Hop = ReturnType<typeof parseAddress>;

/** The chain's hops from left (the client, as claimed) to right (the hop the peer saw); undefined for a hop that is no address. */
function forwardedChain(view: ForwardingView): Hop[] {
  const forwarded = joined(view.forwarded);
  if (forwarded !== undefined) return forwarded.split(",").map((element) => hopOf(forParameter(element)));
  const xff = joined(view.xForwardedFor);
  return xff === undefined ? [] : xff.split(",").map((item) => hopOf(item.trim()));
}

/** A header repeated on several lines is one list (RFC 9110 §5.3); blank means absent. */
function joined(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value.join(",") : value;
  return text === undefined || text.trim() === "" ? undefined : text;
}

/** The `for=` value of one Forwarded element, unquoted; undefined when the element has none. */
function forParameter(element: string): string | undefined {
  for (const pair of element.split(";")) {
    const at = pair.indexOf("=");
    if (at === -1 || pair.slice(0, at).trim().toLowerCase() !== "for") continue;
    const value = pair.slice(at + 1).trim();
    return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return undefined;
}

/** `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1`, `[2001:db8::1]` or `[2001:db8::1]:4711` → the address. */
function hopOf(text: string | undefined): Hop {
  if (!text) return undefined;
  if (text.startsWith("[")) {
    const end = text.indexOf("]");
    return end === -1 ? undefined : parseAddress(text.slice(1, end));
  }
  const colon = text.indexOf(":");
  // One colon: an IPv4 address with a port. More: IPv6 without brackets (X-Forwarded-For writes it so).
  if (colon !== -1 && colon === text.lastIndexOf(":")) return parseAddress(text.slice(0, colon));
  return parseAddress(text);
}
