/** Types for mongo-emulator.mjs (plain JS so `node` can run it without a TypeScript loader). */

export interface StartMongoEmulatorOptions {
  /** The emulator's run.sh; default findMongoEmulator(). */
  runSh?: string;
  /** Listen on this port instead of a free one (e.g. to restart it where clients expect it). */
  port?: number;
  /** Answer `hello` as a one-member replica set of this name, so the driver runs transactions. */
  replicaSet?: string;
  /** How long to wait until it listens; default 180 000 ms (the first start builds it). */
  startTimeoutMs?: number;
}

export interface MongoEmulatorHandle {
  /** `mongodb://127.0.0.1:<port>/keyward_test?serverMonitoringMode=poll` */
  url: string;
  port: number;
  pid: number | undefined;
  /** Kills the emulator and waits for it to exit; safe to call more than once. */
  stop(): Promise<void>;
}

export function findMongoEmulator(): string | undefined;
export function emulatorUrl(port: number, db?: string): string;
export function startMongoEmulator(options?: StartMongoEmulatorOptions): Promise<MongoEmulatorHandle>;
