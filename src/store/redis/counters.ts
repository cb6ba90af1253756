import { readFileSync } from "node:fs";
import type { Cluster, Redis } from "ioredis";
import { packageFile } from "../../package-file.js";
import { atTurnEnd } from "../../turn-end.js";
import { windowOf } from "../../domain/sliding-window.js";
import { idempotencyConflict } from "../../domain/idempotency.js";
import type { ConsumePlan, CounterStore, CreditsCheck, CreditsOperation, IdempotencyCheck } from "../ports/counters.js";
import { replayedResult, resultOf, type Reply } from "./consume-reply.js";
import { checkCount, checkPlan } from "../counter-input.js";
import { isCluster, type RedisClient } from "./client-options.js";
import { defineScript, luaScript, pingRedis, runScript } from "./connection.js";
import { keyUnder, tagPrefix } from "./keys.js";
import { createReplicaAcks } from "./replica-acks.js";

const CONSUME_LUA = readFileSync(packageFile("src/store/redis/consume.lua"), "utf8");
const CONSUME = luaScript(CONSUME_LUA);
/**
 * consume.lua for several plans in one call: ARGV starts with the number of plans p, then each plan's key count and
 * argument count; then come the plans' arguments, and KEYS holds their keys, each plan's in turn. Each plan runs
 * as consume.lua would on its own slices, under pcall, so a plan that fails answers its error and the others
 * their replies, as p separate calls would.
 */
const CONSUME_MANY = luaScript(`local function consume(KEYS, ARGV)
${CONSUME_LUA}
end
local plans = tonumber(ARGV[1])
local replies = {}
local k, a = 0, 1 + 2 * plans
for p = 1, plans do
  local keys, args = {}, {}
  for i = 1, tonumber(ARGV[2 * p]) do keys[i] = KEYS[k + i] end
  for i = 1, tonumber(ARGV[2 * p + 1]) do args[i] = ARGV[a + i] end
  k, a = k + #keys, a + #args
  local ok, reply = pcall(consume, keys, args)
  if ok then replies[p] = reply
  elseif type(reply) == 'table' and reply.err then replies[p] = reply
  else replies[p] = redis.error_reply(tostring(reply)) end
end
return replies
`);
const CREDITS_LUA = readFileSync(packageFile("src/store/redis/credits.lua"), "utf8");
const CLAIM_LUA = readFileSync(packageFile("src/store/redis/claim.lua"), "utf8");

export interface RedisCounterStoreOptions {
  /** A client from createRedisConnection (one server or a cluster); the caller owns it (`close()` leaves it open). */
  redis: RedisClient;
  /** First segment of every key, e.g. one per deployment sharing a Redis; default `kw`. */
  keyPrefix?: string;
  /**
   * Answer a changed count only once this many replicas of its master hold it (Redis WAIT, see replica-acks.ts);
   * otherwise reject (503). Default 0: answer as soon as the master has it.
   */
  replicaAcks?: { replicas: number; timeoutMs: number };
}

/**
 * Most consume steps one script call carries. A whole turn in one call left Redis idle while Node parsed the turn and
 * Node idle while Redis ran it; a call sent as soon as it holds 16 overlaps the two: REST verification on one Redis
 * 22.2-22.6k -> 27.2-28.6k req/s (docs/bench.md, "Verification on Redis counters").
 */
const STEPS_PER_CALL = 16;

/**
 * Counters in Redis, shared by any number of Keyward processes. `consume` runs consume.lua for its plan (atomic, all
 * keys under the plan's hash tag; a plan with an idempotency key adds a claim first): on one server the plans of one
 * event-loop turn share EVALSHAs of up to STEPS_PER_CALL plans, on a cluster each plan has its own. Read-modify-writes
 * of credits run credits.lua.
 * Window counters expire 2 × duration after their last increment; balances never expire. Fails closed: when
 * Redis is unreachable every method rejects (the caller answers 503), nothing is guessed.
 */
export function createRedisCounterStore(options: RedisCounterStoreOptions): CounterStore {
  const { redis } = options;
  const prefix = options.keyPrefix ?? "kw";
  const claimScript = defineScript<number>(redis, "kwClaim", CLAIM_LUA, 1);
  const creditsScript = defineScript<number | null>(redis, "kwCredits", CREDITS_LUA, 1);
  let closed = false;
  const acknowledged = options.replicaAcks?.replicas ? createReplicaAcks({ redis, ...options.replicaAcks }) : undefined;

  // `base` is the tag's prefix (tagPrefix); a consume builds it once for all its keys.
  const creditsKeyUnder = (base: string, keyId: string) => keyUnder(base, ["credits", keyId]);
  const creditsKey = (tag: string, keyId: string) => creditsKeyUnder(tagPrefix({ prefix, tag }), keyId);

  function pushBalanceArgs(argv: string[], { cost, refill }: CreditsCheck): void {
    argv.push(String(cost), refill ? String(refill.boundary) : "", refill ? String(refill.amount) : "0");
  }

  /**
   * Claims the plan's idempotency key for its fingerprint in the workspace (a slot of its own, so one more round
   * trip, paid only by calls with a key): the step's record sits under the counter tag, which another API key does
   * not share, so without the claim a key reused with another API key would go unnoticed. Adds the record's key and
   * arguments to the step's.
   */
  const claimKeyOf = ({ scope, key }: IdempotencyCheck) => keyUnder(tagPrefix({ prefix, tag: `idem/${scope}` }), [key]);
  const recordKeyOf = (base: string, { scope, key }: IdempotencyCheck) => keyUnder(base, ["idem", scope, key]);

  async function claim(plan: ConsumePlan, check: IdempotencyCheck): Promise<void> {
    const timing = [String(check.expiresAt), String(plan.now), String(check.expiresAt - plan.now)];
    if ((await claimScript([claimKeyOf(check)], [check.fingerprint, ...timing])) !== 1) throw idempotencyConflict();
  }

  let corked = false;
  /**
   * On a cluster, holds this turn's writes to Redis and sends them as one write per connection at the turn's end (see
   * turn-end.ts): the verifications of one turn then cost one write syscall and one Redis wake-up per shard instead of
   * one each. Measured: a write per EVALSHA was a third of the server's CPU under load. Commands still go out in the
   * order issued. Every ready master connection is corked (a turn's scripts spread over the shards); a connection made
   * during the turn simply writes at once.
   */
  function batchWrites(cluster: Cluster): void {
    if (corked || cluster.status !== "ready") return;
    corked = true;
    const streams = readyStreams(cluster.nodes("master"));
    for (const stream of streams) stream.cork();
    atTurnEnd("store", () => {
      corked = false;
      for (const stream of streams) stream.uncork();
    });
  }

  /**
   * One server: the turn's consume steps go out together (consume.lua for a single step, CONSUME_MANY for several,
   * in the order they came), a call as soon as it holds STEPS_PER_CALL and the rest at the turn's end, so a call pays
   * the client's per-command work and the write once. On a cluster the steps of one turn live in different slots, and
   * each goes out as its own call.
   */
  let turnSteps: { argv: string[]; resolve: (reply: Reply) => void; reject: (error: unknown) => void }[] = [];

  function consumeThisTurn(argv: string[]): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const queued = turnSteps.push({ argv, resolve, reject });
      if (queued === 1) atTurnEnd("store", sendTurnSteps);
      else if (queued >= STEPS_PER_CALL) sendTurnSteps();
    });
  }

  function sendTurnSteps(): void {
    const steps = turnSteps;
    if (steps.length === 0) return; // a full call took them already
    turnSteps = [];
    if (steps.length === 1) {
      const step = steps[0]!;
      runScript<Reply>(redis, CONSUME, step.argv).then(step.resolve, step.reject);
      return;
    }
    // [sha, key count, keys..., plans, (key count, argument count) per plan, arguments...]
    const keys: string[] = [];
    const header: string[] = [String(steps.length)];
    const args: string[] = [];
    for (const { argv } of steps) {
      const keyCount = Number(argv[1]);
      for (let i = 2; i < 2 + keyCount; i++) keys.push(argv[i]!);
      for (let i = 2 + keyCount; i < argv.length; i++) args.push(argv[i]!);
      header.push(argv[1]!, String(argv.length - 2 - keyCount));
    }
    runScript<(Reply | Error)[]>(redis, CONSUME_MANY, [CONSUME_MANY.sha, String(keys.length), ...keys, ...header, ...args]).then(
      (replies) => steps.forEach((step, i) => (replies[i] instanceof Error ? step.reject(replies[i]) : step.resolve(replies[i] as Reply))),
      (error: unknown) => steps.forEach((step) => step.reject(error)),
    );
  }

  function usable(): void {
    if (closed) throw new Error("redis counter store is closed");
  }

  async function credits(
    tag: string,
    keyId: string,
    operation: CreditsOperation | "read",
    value: number,
    refill: { boundary: number; amount: number } | undefined,
    now: number,
  ): Promise<number | null> {
    usable();
    if (refill) {
      checkCount("refill boundary", refill.boundary);
      checkCount("refill amount", refill.amount);
    }
    return creditsScript(
      [creditsKey(tag, keyId)],
      [operation, String(value), refill ? String(refill.boundary) : "", refill ? String(refill.amount) : "0", String(now)],
    );
  }

  return {
    async consume(plan) {
      usable();
      checkPlan(plan);
      const { limits, credits, identityCredits, idempotency } = plan;
      if (limits.length === 0 && !credits && !identityCredits && !idempotency) return { outcome: "VALID", limits: [] };
      const positions = limits.map((check) => windowOf(plan.now, check.duration));
      const base = tagPrefix({ prefix, tag: plan.tag });
      // EVALSHA's arguments in one array, in consume.lua's order: sha, key count, keys, then arguments.
      const argv = [CONSUME.sha, ""];
      for (let i = 0; i < limits.length; i++) {
        const windows = keyUnder(base, ["rl", limits[i]!.bucket, limits[i]!.duration]);
        argv.push(`${windows}:${positions[i]!.start}`, `${windows}:${positions[i]!.previousStart}`);
      }
      // The key's balance, then the identity's shared one: the order consume.lua reports them in.
      if (credits) argv.push(creditsKeyUnder(base, credits.keyId));
      if (identityCredits) argv.push(creditsKeyUnder(base, identityCredits.keyId));
      if (idempotency) {
        await claim(plan, idempotency);
        argv.push(recordKeyOf(base, idempotency));
      }
      argv[1] = String(argv.length - 2);
      argv.push(String(limits.length), String((credits ? 1 : 0) + (identityCredits ? 1 : 0)));
      for (let i = 0; i < limits.length; i++) {
        const { limit, duration, cost } = limits[i]!;
        argv.push(String(limit), String(duration), String(cost), String(positions[i]!.elapsed), String(2 * duration));
      }
      if (credits) pushBalanceArgs(argv, credits);
      if (identityCredits) pushBalanceArgs(argv, identityCredits);
      if (idempotency) {
        argv.push(idempotency.fingerprint, String(idempotency.expiresAt), String(plan.now), String(idempotency.expiresAt - plan.now));
      }

      let reply: Reply;
      if (isCluster(redis)) {
        batchWrites(redis);
        reply = await runScript<Reply>(redis, CONSUME, argv);
      } else reply = await consumeThisTurn(argv);
      if (reply[0] === -1) throw idempotencyConflict();
      if (reply[0] === -2) return replayedResult(plan, String(reply[1]));
      const result = resultOf(plan, reply as number[], positions);
      // A refused step changed nothing that matters (at most a due refill, which repeats identically).
      if (result.outcome === "VALID" && acknowledged) await acknowledged(argv[2]!);
      return result;
    },

    async recall(plan) {
      usable();
      checkPlan(plan);
      const check = plan.idempotency;
      if (!check) return undefined;
      // Read-only, so two plain reads in their two slots; the same judgement as claim.lua and consume.lua.
      const [claimed, record] = await Promise.all([
        redis.hmget(claimKeyOf(check), "fingerprint", "expiresAt"),
        redis.hmget(recordKeyOf(tagPrefix({ prefix, tag: plan.tag }), check), "fingerprint", "reply", "expiresAt"),
      ]);
      const live = (fingerprint: string | null, expiresAt: string | null) => fingerprint !== null && Number(expiresAt) > plan.now;
      if (live(claimed[0]!, claimed[1]!) && claimed[0] !== check.fingerprint) throw idempotencyConflict();
      if (!live(record[0]!, record[2]!)) return undefined;
      if (record[0] !== check.fingerprint) throw idempotencyConflict();
      return replayedResult(plan, record[1]!);
    },

    async setCredits(tag, keyId, remaining, now) {
      usable();
      checkCount("remaining", remaining);
      checkCount("now", now);
      const key = creditsKey(tag, keyId);
      await redis.hset(key, "remaining", String(remaining), "lastRefillAt", String(now));
      if (acknowledged) await acknowledged(key);
    },

    async adjustCredits(tag, keyId, change) {
      checkCount("value", change.value);
      checkCount("now", change.now);
      const balance = await credits(tag, keyId, change.operation, change.value, change.refill, change.now).catch((error: Error) => {
        // The script's refusal of a balance past 2^53 - 1, as the embedded store reports it.
        throw error.message.startsWith("ERANGE") ? new RangeError("credits balance would exceed 2^53") : error;
      });
      if (typeof balance !== "number") throw new Error("credits script answered no balance");
      if (acknowledged) await acknowledged(creditsKey(tag, keyId));
      return balance;
    },

    async readCredits(tag, keyId, refill) {
      usable();
      if (!refill) {
        const stored = await redis.hget(creditsKey(tag, keyId), "remaining");
        return stored === null ? undefined : Number(stored);
      }
      return (await credits(tag, keyId, "read", 0, refill, 0)) ?? undefined;
    },

    async deleteCredits(tag, keyId) {
      usable();
      await redis.del(creditsKey(tag, keyId));
    },

    async ping() {
      usable();
      if (!(await pingRedis(redis))) throw new Error("redis counter store is unreachable");
    },

    async close() {
      closed = true;
    },
  };
}

function readyStreams(nodes: readonly Redis[]): Redis["stream"][] {
  return nodes.filter((node) => node.status === "ready").map((node) => node.stream);
}
