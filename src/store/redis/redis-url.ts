/**
 * The forms REDIS_URL may take, parsed into plain data (pure, no I/O):
 *
 * - `redis://[user:pass@]host:port[/db]`, `rediss://...`: one Redis server (passed to ioredis as it is).
 * - `redis+cluster://[user:pass@]h1:p1,h2:p2,...`, `rediss+cluster://...`: a Redis Cluster; the hosts are seed
 *   nodes (any few masters or replicas), the client learns the rest from CLUSTER SLOTS. No database number.
 * - `redis+sentinel://[user:pass@]h1:p1,h2:p2,.../<master-name>[/db]`, `rediss+sentinel://...`: a single Redis
 *   whose master is found through Sentinel. The credentials are the data nodes'; `?sentinelPassword=...` (and
 *   `sentinelUsername`) authenticate against the sentinels when they need it.
 *
 * A missing port means 6379 (26379 for sentinels).
 */
export interface RedisNodeAddress {
  host: string;
  port: number;
}

interface Credentials {
  username?: string;
  password?: string;
  tls: boolean;
}

export type RedisTarget =
  | { kind: "single"; url: string }
  | ({ kind: "cluster"; nodes: RedisNodeAddress[] } & Credentials)
  | ({
      kind: "sentinel";
      sentinels: RedisNodeAddress[];
      masterName: string;
      db: number;
      sentinelUsername?: string;
      sentinelPassword?: string;
    } & Credentials);

/** Raised for a REDIS_URL that names no usable target; the message never contains the password. */
export class RedisUrlError extends Error {
  override name = "RedisUrlError";
}

const MULTI = /^(rediss?)\+(cluster|sentinel):\/\/(?:([^@/]*)@)?([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/;

/** Parses REDIS_URL; throws RedisUrlError (without the password) when it cannot work. */
export function parseRedisUrl(url: string): RedisTarget {
  if (/^rediss?:\/\//.test(url)) return { kind: "single", url };
  const match = MULTI.exec(url);
  if (!match) {
    throw new RedisUrlError(
      "REDIS_URL must start with redis://, rediss://, redis+cluster://, rediss+cluster://, redis+sentinel:// or rediss+sentinel://",
    );
  }
  const [, scheme, kind, userinfo, hostList, path = "", query = ""] = match;
  const credentials: Credentials = { tls: scheme === "rediss", ...parseUserinfo(userinfo) };
  const defaultPort = kind === "sentinel" ? 26379 : 6379;
  const nodes = hostList!.split(",").map((entry) => parseHostPort(entry, defaultPort));
  if (kind === "cluster") {
    if (path !== "" && path !== "/") throw new RedisUrlError("a redis+cluster:// URL takes no path (Redis Cluster has only database 0)");
    return { kind: "cluster", nodes, ...credentials };
  }
  const [masterName, db = "0", ...rest] = path.replace(/^\//, "").split("/");
  if (!masterName || rest.length > 0) throw new RedisUrlError("a redis+sentinel:// URL needs the master name as its path: /<master-name>[/db]");
  if (!/^\d{1,2}$/.test(db)) throw new RedisUrlError(`invalid database number in REDIS_URL: ${JSON.stringify(db)}`);
  const params = new URLSearchParams(query);
  return {
    kind: "sentinel",
    sentinels: nodes,
    masterName: decodeURIComponent(masterName),
    db: Number(db),
    ...credentials,
    ...(params.get("sentinelUsername") ? { sentinelUsername: params.get("sentinelUsername")! } : {}),
    ...(params.get("sentinelPassword") ? { sentinelPassword: params.get("sentinelPassword")! } : {}),
  };
}

/** REDIS_URL with every password (userinfo and `sentinelPassword`) replaced by `***`, for messages and logs. */
export function redactRedisUrl(url: string): string {
  return url.replace(/(:\/\/[^:@/]*:)[^@/]*@/, "$1***@").replace(/([?&]sentinelPassword=)[^&#]*/, "$1***");
}

function parseUserinfo(userinfo: string | undefined): { username?: string; password?: string } {
  if (!userinfo) return {};
  const colon = userinfo.indexOf(":");
  const username = decodeURIComponent(colon === -1 ? userinfo : userinfo.slice(0, colon));
  const password = colon === -1 ? undefined : decodeURIComponent(userinfo.slice(colon + 1));
  return { ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

function parseHostPort(entry: string, defaultPort: number): RedisNodeAddress {
  // `[::1]:7000` for IPv6, `host:7000`, or `host` alone.
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+))(?::(\d{1,5}))?$/.exec(entry.trim());
  const port = match?.[3] === undefined ? defaultPort : Number(match[3]);
  if (!match || port < 1 || port > 65535) throw new RedisUrlError(`invalid host:port in REDIS_URL: ${JSON.stringify(entry)}`);
  return { host: match[1] ?? match[2]!, port };
}
