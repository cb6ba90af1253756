/**
 * Redis connections for the counters adapter. The service must fail closed: when Redis is down or slow a
 * command rejects within a bounded time (the caller answers 503) instead of queueing or hanging.
 */
import { createHash } from "node:crypto";
import { Command } from "ioredis";
import { newRedisClient, type RedisClient } from "./client-options.js";
import { parseRedisUrl, redactRedisUrl } from "./redis-url.js";

export type { RedisClient } from "./client-options.js";

export interface RedisConnectionOptions {
  /** Any REDIS_URL form (see redis-url.ts): `redis://`, `rediss://`, `redis+cluster://`, `redis+sentinel://`. */
  url: string;
  /** Shown by `CLIENT LIST`; helps tell instances apart in production. */
  name?: string;
  /** Bound on the initial connect and handshake; default 5 000 ms. */
  connectTimeoutMs?: number;
  /** Bound on every command once connected; default 2 000 ms. */
  commandTimeoutMs?: number;
  /** Connection errors after startup (reconnects happen by themselves); default: ignored. */
  onError?: (error: Error) => void;
}

/** Raised when the first connection cannot be made in time; carries no credentials. */
export class RedisConnectError extends Error {
  override name = "RedisConnectError";
}

/**
 * Connects to the server, cluster or sentinel-managed master REDIS_URL names, and resolves once it answered the
 * handshake (a cluster: once its slot map is known), or rejects with RedisConnectError within
 * `connectTimeoutMs` (the half-made client is torn down, so nothing keeps retrying in the background).
 * After that the client reconnects by itself, but never queues: while disconnected a command rejects at once,
 * a command in flight when the connection drops rejects rather than being silently re-sent (a re-sent
 * counter script could count twice), and any command rejects after `commandTimeoutMs`.
 */
export async function createRedisConnection(options: RedisConnectionOptions): Promise<RedisClient> {
  const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
  const redis = newRedisClient(parseRedisUrl(options.url), {
    name: options.name,
    connectTimeoutMs,
    commandTimeoutMs: options.commandTimeoutMs ?? 2_000,
  });
  // Without a listener ioredis prints every connection error; the owner decides what to log.
  redis.on("error", (error: Error) => options.onError?.(error));

  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new RedisConnectError(`Redis at ${redactUrl(options.url)} did not connect within ${connectTimeoutMs} ms`)),
      connectTimeoutMs,
    );
  });
  try {
    await Promise.race([redis.connect(), timeout]);
    return redis;
  } catch (error) {
    redis.disconnect();
    if (error instanceof RedisConnectError) throw error;
    throw new RedisConnectError(`Redis at ${redactUrl(options.url)} is unreachable: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}

/** Health check: true when Redis answers PONG within `timeoutMs` (default 1 000 ms); never throws. */
export async function pingRedis(redis: RedisClient, options: { timeoutMs?: number } = {}): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), options.timeoutMs ?? 1_000);
  });
  try {
    return await Promise.race([redis.ping().then((reply) => reply === "PONG"), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Closes the client: QUIT when connected (replies already owed still arrive), otherwise, or if QUIT takes
 * longer than `timeoutMs` (default 1 000 ms), drops the socket. It stops reconnecting either way; resolves
 * once the socket is closed (bounded by `timeoutMs`) and never throws.
 */
export async function closeRedis(redis: RedisClient, options: { timeoutMs?: number } = {}): Promise<void> {
  if (redis.status === "end") return;
  // Between reconnect attempts there is no socket left to close, and ioredis never emits "end" then.
  if (redis.status === "reconnecting" || redis.status === "wait") {
    redis.disconnect();
    return;
  }
  const ended = new Promise<void>((resolve) => redis.once("end", () => resolve()));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, options.timeoutMs ?? 1_000);
  });
  try {
    if (redis.status === "ready") await Promise.race([redis.quit().then(() => ended), timeout]);
    // Re-read: QUIT may have ended the client meanwhile (TypeScript keeps the narrowing from above).
    if ((redis.status as string) !== "end") {
      redis.disconnect();
      await Promise.race([ended, timeout]);
    }
  } catch {
    redis.disconnect();
  } finally {
    clearTimeout(timer);
  }
}

/** A Lua script bound to a client: `run(keys, args)` sends EVALSHA and falls back to EVAL on NOSCRIPT. */
export type RedisScript<T = unknown> = (keys: readonly string[], args?: readonly (string | number)[]) => Promise<T>;

/** A Lua script's text and its SHA1, the name EVALSHA runs it by. */
export interface LuaScript {
  lua: string;
  sha: string;
}

export function luaScript(lua: string): LuaScript {
  return { lua, sha: createHash("sha1").update(lua).digest("hex") };
}

/**
 * Runs `script` with `argv` = [its sha, number of keys, ...keys, ...args], built by the caller in one array (on a hot
 * path nothing is copied or converted on the way). Sends EVALSHA; on NOSCRIPT (the script did not run, so sending it
 * again cannot count twice) sends EVAL once. Replies come back as Redis sent them: integers as numbers, bulk strings as
 * Buffers, unless `replyEncoding` is "utf8". All keys must share one hash tag, so the script stays single-slot on Redis
 * Cluster, where the client routes the call by its first key.
 */
export function runScript<T>(redis: RedisClient, script: LuaScript, argv: string[], replyEncoding?: "utf8"): Promise<T> {
  const options = { replyEncoding };
  return (redis.sendCommand(new Command("evalsha", argv, options)) as Promise<T>).catch((error: Error) => {
    if (!error.message.startsWith("NOSCRIPT")) throw error;
    const again = argv.slice();
    again[0] = script.lua;
    return redis.sendCommand(new Command("eval", again, options)) as Promise<T>;
  });
}

/**
 * A typed runner for `lua` (see runScript; replies as text). All keys a script touches must be passed in `keys`
 * (exactly `numberOfKeys`) and share one hash tag. `name` only documents the script (and must be an identifier).
 */
export function defineScript<T = unknown>(redis: RedisClient, name: string, lua: string, numberOfKeys: number): RedisScript<T> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new TypeError(`invalid script name: ${name}`);
  const script = luaScript(lua);
  return (keys, args = []) => {
    if (keys.length !== numberOfKeys) {
      return Promise.reject(new TypeError(`script ${name} takes ${numberOfKeys} keys, got ${keys.length}`));
    }
    return runScript<T>(redis, script, [script.sha, String(numberOfKeys), ...keys, ...args.map(String)], "utf8");
  };
}

/** The URL without its passwords, for messages and logs. */
export function redactUrl(url: string): string {
  return redactRedisUrl(url);
}
