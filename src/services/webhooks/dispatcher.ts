import { randomBytes as nodeRandomBytes } from "node:crypto";
import type { Clock } from "../../domain/clock.js";
import { nextAttemptDelay } from "../../domain/webhooks/retry-schedule.js";
import { signatureHeader } from "../../domain/webhooks/signature.js";
import type { DocumentStore } from "../../store/ports/documents.js";
import type { Settlement, WebhookMessageRecord, WebhookRecord } from "../../store/ports/webhooks.js";
import type { Sender } from "./send.js";
import type { WebhookIndex } from "./webhook-index.js";
import { signingSecrets } from "./webhook-secrets.js";

/** Messages one poll takes at most; more wait for the next poll (which follows at once while there are more). */
const BATCH = 50;
/** A taken message is another instance's to take again after this: well past one attempt's 10 s timeout. */
const LEASE_MS = 60_000;
/** A paused endpoint's messages are looked at again this often (scaled), without counting an attempt. */
const PAUSED_RECHECK_MS = 60_000;

export interface DispatcherDeps {
  documents: DocumentStore;
  clock: Clock;
  /** The `webhook-timestamp` is wall-clock time whatever `clock` is: receivers check it against theirs. */
  wallClock: Clock;
  encryptionKey?: Buffer;
  sender: Sender;
  index: WebhookIndex;
  /** Multiplies retry delays and poll intervals (KEYWARD_WEBHOOKS_RETRY_SCALE; 1 in production). */
  scale: number;
  /** A paused endpoint's message older than this fails instead of waiting on (bounded outbox); ms. */
  retentionMs: number;
  /** Queues `webhook.disabled` when an endpoint is given up on. */
  disabled(webhook: WebhookRecord, now: number): Promise<void>;
  random?: () => number;
  log?: (line: string) => void;
}

/**
 * Sends due messages of the outbox: takes a batch (each under a lease, so with several instances on MongoDB each
 * message is sent by one), POSTs each, and records the outcome: delivered on a 2xx, else retried on the backoff
 * schedule, and on the last failure the message fails and its endpoint is disabled.
 */
export function createDispatcher(deps: DispatcherDeps) {
  const owner = `inst_${nodeRandomBytes(8).toString("hex")}`;
  const random = deps.random ?? Math.random;
  const log = deps.log ?? ((line: string) => console.error(line));
  const messages = deps.documents.webhookMessages;

  /** The Standard Webhooks request of a message, signed with every secret that signs now. */
  function signed(webhook: WebhookRecord, message: WebhookMessageRecord, now: number) {
    if (!deps.encryptionKey) throw new Error("KEYWARD_ENCRYPTION_KEY is not configured: webhook secrets cannot be read");
    const body = JSON.stringify({ type: message.type, timestamp: new Date(message.createdAt).toISOString(), data: message.data });
    const timestamp = Math.floor(deps.wallClock.now() / 1000);
    return {
      body,
      headers: {
        "webhook-id": message.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signatureHeader(signingSecrets(deps.encryptionKey, webhook, now), message.id, timestamp, body),
      },
    };
  }

  async function attempt(message: WebhookMessageRecord): Promise<void> {
    const now = deps.clock.now();
    const webhook = await deps.documents.webhooks.get(message.workspaceId, message.webhookId);
    const gone = (error: string): Settlement =>
      ({ status: "failed", attempts: message.attempts, nextAttemptAt: now, finishedAt: now, attempt: { at: now, latencyMs: 0, error } });
    if (!webhook) return void (await messages.settle(message.id, owner, gone("the endpoint was deleted")));
    if (!webhook.enabled) {
      if (webhook.disabledReason === "failing") return void (await messages.settle(message.id, owner, gone("the endpoint is disabled")));
      if (now - message.createdAt > deps.retentionMs) return void (await messages.settle(message.id, owner, gone("expired while the endpoint was paused")));
      const later = now + Math.max(1, Math.round(PAUSED_RECHECK_MS * deps.scale));
      return void (await messages.settle(message.id, owner, { status: "pending", attempts: message.attempts, nextAttemptAt: later }));
    }
    const { body, headers } = signed(webhook, message, now);
    const result = await deps.sender.send(webhook.url, headers, body);
    const done = deps.clock.now();
    const attempts = message.attempts + 1;
    const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
    const record = {
      at: done, latencyMs: result.latencyMs, ...(result.status !== undefined && { responseCode: result.status }),
      ...(!ok && { error: result.error ?? `HTTP ${result.status}` }),
    };
    if (ok) {
      await messages.settle(message.id, owner, { status: "delivered", attempts, nextAttemptAt: done, deliveredAt: done, finishedAt: done, attempt: record });
      return;
    }
    const delay = nextAttemptDelay(attempts, { scale: deps.scale, random: random() });
    if (delay !== undefined) {
      await messages.settle(message.id, owner, { status: "pending", attempts, nextAttemptAt: done + delay, attempt: record });
      return;
    }
    await messages.settle(message.id, owner, { status: "failed", attempts, nextAttemptAt: done, finishedAt: done, attempt: record });
    await disable(webhook, done);
  }

  /** Gives up on an endpoint after a message exhausted its retries: disabled, and `webhook.disabled` queued. */
  async function disable(webhook: WebhookRecord, now: number): Promise<void> {
    const current = await deps.documents.webhooks.get(webhook.workspaceId, webhook.id);
    if (!current?.enabled) return;
    await deps.documents.webhooks.replace({ ...current, enabled: false, disabledReason: "failing", updatedAt: now });
    await deps.index.changed(webhook.workspaceId);
    await deps.disabled(current, now);
  }

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const pollMs = Math.max(10, Math.round(1000 * deps.scale));

  async function poll(): Promise<void> {
    for (;;) {
      const due = await messages.claimDue(owner, deps.clock.now(), LEASE_MS, BATCH);
      await Promise.all(due.map((m) => attempt(m).catch((error: unknown) => log(`webhooks: delivery of ${m.id} failed: ${(error as Error).message}`))));
      if (due.length < BATCH || stopped) return;
    }
  }

  function schedule(delay: number): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = poll()
        .catch((error: unknown) => log(`webhooks: cannot read the outbox: ${(error as Error).message}`))
        .finally(() => {
          running = undefined;
          schedule(pollMs);
        });
    }, delay);
    timer.unref();
  }

  return {
    start: () => schedule(0),
    /** Looks at the outbox soon rather than at the next poll (a message was just queued). */
    nudge(): void {
      if (!running) schedule(0);
    },
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
