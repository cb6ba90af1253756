/** Types for redis-sentinel.mjs (plain JS so `node` can run it without a TypeScript loader). */
import type { RedisServerHandle } from "./redis-server.mjs";

export interface RedisSentinelHandle {
  /** `redis+sentinel://127.0.0.1:<sentinel port>/<master name>` */
  url: string;
  masterName: string;
  master: RedisServerHandle;
  replica: RedisServerHandle;
  sentinel: RedisServerHandle;
  masterPort(): Promise<number>;
  /** Kills all three; safe to call more than once. */
  stop(): Promise<void>;
}

export function startRedisSentinel(options?: {
  masterName?: string;
  downAfterMs?: number;
  failoverTimeoutMs?: number;
  startTimeoutMs?: number;
}): Promise<RedisSentinelHandle>;
