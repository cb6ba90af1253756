/** Types for redis-server.mjs (plain JS so `node` can run it without a TypeScript loader). */

export interface StartRedisServerOptions {
  /** Binary to run; default `$REDIS_SERVER_BIN` or `redis-server` from PATH. */
  bin?: string;
  /** How long to wait for the first PONG; default 10 000 ms. */
  startTimeoutMs?: number;
  /** Listen on this port instead of a free one chosen by the OS. */
  port?: number;
  /** Extra redis-server arguments, e.g. `["--cluster-enabled", "yes"]`. */
  extraArgs?: string[];
  /** Writes a config file into the server's private dir and returns its path; it becomes the first argument. */
  configFile?: (dir: string) => string;
}

export interface RedisServerHandle {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Private working directory, removed by `stop()`. */
  dir: string;
  pid: number | undefined;
  /** Kills the server and waits for it to exit; safe to call more than once. */
  stop(): Promise<void>;
}

export function startRedisServer(options?: StartRedisServerOptions): Promise<RedisServerHandle>;
