/** Types for redis-cluster.mjs (plain JS so `node` can run it without a TypeScript loader). */
import type { RedisServerHandle } from "./redis-server.mjs";

export interface StartRedisClusterOptions {
  /** Default 3. */
  masters?: number;
  /** Default 1. */
  replicasPerMaster?: number;
  /** cluster-node-timeout; default 1 000 ms. */
  nodeTimeoutMs?: number;
  /** Bound on creating the cluster and waiting for it to be ok; default 30 000 ms. */
  startTimeoutMs?: number;
}

export interface ClusterNode {
  id: string;
  port: number;
  role: "master" | "replica";
  masterId: string | undefined;
  /** true once the cluster agreed the node failed, "pfail" while only suspected. */
  failed: boolean | "pfail";
  myself: boolean;
  connected: boolean;
  /** Slot ranges served, e.g. `["0-5460"]`, plus migration markers. */
  slots: string[];
}

export interface RedisClusterHandle {
  /** `redis+cluster://127.0.0.1:p1,...` naming all six nodes. */
  url: string;
  ports: number[];
  servers: RedisServerHandle[];
  masterPorts(): Promise<number[]>;
  waitHealthy(options?: { except?: number[]; timeoutMs?: number }): Promise<void>;
  /** Kills every node; safe to call more than once. */
  stop(): Promise<void>;
}

export function startRedisCluster(options?: StartRedisClusterOptions): Promise<RedisClusterHandle>;
export function redisCli(port: number, args: string[], options?: { timeoutMs?: number }): Promise<string>;
export function clusterNodes(port: number): Promise<ClusterNode[]>;
export function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void>;
export function migrateSlot(options: {
  slot: number;
  fromPort: number;
  toPort: number;
  /** Every master's port: each learns the new owner. */
  masterPorts: number[];
  between?: (phase: "migrating" | "keys-moved") => Promise<void>;
}): Promise<{ moved: number }>;
export function ownerOfSlot(askPort: number, slot: number): Promise<number>;
