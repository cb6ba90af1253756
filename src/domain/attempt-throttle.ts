/**
 * Failed-attempt throttling per client (dashboard sign-in): after `maxFailures` failed attempts from one client
 * within `windowMs`, that client is refused for `lockoutMs` without its attempts being judged at all. Pure state in
 * memory; time is passed in on every call.
 */

export interface AttemptThrottleOptions {
  /** Failed attempts allowed in one window; the one that reaches this number starts the lockout. */
  maxFailures: number;
  /** A window starts at a client's first counted attempt and lasts this long. */
  windowMs: number;
  /** How long a client is refused once it has reached `maxFailures`. */
  lockoutMs: number;
  /** Clients tracked at most; past it the one whose last attempt is oldest is forgotten. */
  maxClients: number;
}

export type Admission = { admitted: true } | { admitted: false; retryAfterMs: number };

interface Entry {
  count: number;
  windowStart: number;
  lastAt: number;
  lockedUntil?: number;
}

/**
 * A throttle for attempts that may fail. `admit` counts an attempt as failed at once, before it is judged, so a burst
 * of concurrent attempts cannot all slip in before the first failure is recorded; the caller then settles it with
 * `succeeded` (the client starts over) or `withdrawn` (it was no guess: malformed request, server failure) and does
 * nothing for a real failure. Memory stays under `maxClients` entries; entries past their window and lockout are
 * dropped as later calls come by.
 */
export function createAttemptThrottle(options: AttemptThrottleOptions) {
  // Insertion order = order of last attempt (every admission re-inserts), so the oldest sit in front.
  const entries = new Map<string, Entry>();

  const expiresAt = (e: Entry) => Math.max(e.windowStart + options.windowMs, e.lockedUntil ?? 0);

  function sweep(now: number): void {
    for (const [client, entry] of entries) {
      if (expiresAt(entry) > now) return;
      entries.delete(client);
    }
  }

  return {
    /** Whether `client` may attempt now; when admitted, the attempt already counts as failed. */
    admit(client: string, now: number): Admission {
      sweep(now);
      let entry = entries.get(client);
      if (entry?.lockedUntil !== undefined && now < entry.lockedUntil) {
        // Bounded by the lockout even if the clock stepped back since it began.
        return { admitted: false, retryAfterMs: Math.min(entry.lockedUntil - now, options.lockoutMs) };
      }
      if (entry && (entry.lockedUntil !== undefined || now >= entry.windowStart + options.windowMs || now < entry.windowStart)) {
        entry = undefined;
      }
      entries.delete(client);
      if (!entry) {
        if (entries.size >= options.maxClients) entries.delete(entries.keys().next().value!);
        entry = { count: 0, windowStart: now, lastAt: now };
      }
      entry.count++;
      entry.lastAt = now;
      if (entry.count >= options.maxFailures) entry.lockedUntil = now + options.lockoutMs;
      entries.set(client, entry);
      return { admitted: true };
    },

    /** The admitted attempt succeeded: the client's failures are forgotten. */
    succeeded(client: string): void {
      entries.delete(client);
    },

    /** The admitted attempt was not a guess after all: it no longer counts (nor the lockout it may have started). */
    withdrawn(client: string): void {
      const entry = entries.get(client);
      if (!entry || entry.count === 0) return;
      entry.count--;
      if (entry.count < options.maxFailures) entry.lockedUntil = undefined;
    },

    /** Clients tracked now (expired ones included until swept). */
    get size(): number {
      return entries.size;
    },
  };
}

export type AttemptThrottle = ReturnType<typeof createAttemptThrottle>;

/**
 * The client a remote address stands for: IPv4 addresses (IPv4-mapped IPv6 included) as they are, IPv6 addresses
 * grouped by their /64 (one subscriber usually holds a whole /64, and counting single addresses would let it rotate
 * through 2^64 of them). A missing or unparsable address is one client, "unknown".
 */
export function clientOfAddress(address: string | undefined): string {
  if (!address) return "unknown";
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1];
  if (!address.includes(":")) return address;
  const hextets = expandIpv6(address.split("%")[0]);
  return hextets ? `${hextets.slice(0, 4).join(":")}::/64` : "unknown";
}

/** The eight hextets of an IPv6 address (lowercase, no leading zeros), or undefined when it is not one. */
function expandIpv6(address: string): string[] | undefined {
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const parts = (half: string) => (half === "" ? [] : half.split(":"));
  const head = parts(halves[0]);
  const tail = halves.length === 2 ? parts(halves[1]) : [];
  // An embedded IPv4 tail (::1.2.3.4) is two hextets.
  const last = (tail.length > 0 ? tail : head).at(-1);
  if (last?.includes(".")) {
    const octets = last.split(".").map(Number);
    if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) return undefined;
    const replaced = [((octets[0] << 8) | octets[1]).toString(16), ((octets[2] << 8) | octets[3]).toString(16)];
    (tail.length > 0 ? tail : head).splice(-1, 1, ...replaced);
  }
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...head, ...Array<string>(missing).fill("0"), ...tail];
  if (!all.every((h) => /^[0-9a-f]{1,4}$/i.test(h))) return undefined;
  return all.map((h) => parseInt(h, 16).toString(16));
}
