import type { Clock } from "../../domain/clock.js";
import type { RandomBytes } from "../../domain/ids.js";
import type { AuditLogStore } from "../../store/ports/audit.js";
import type { DocumentStore } from "../../store/ports/documents.js";
import type { WebhookRecord } from "../../store/ports/webhooks.js";
import type { InvalidationBus } from "../../store/invalidation-bus.js";
import { createAuditFanout } from "./audit-fanout.js";
import { createDispatcher } from "./dispatcher.js";
import { messageFor, type WebhookEvent } from "./messages.js";
import { createSender } from "./send.js";
import { createWebhookIndex } from "./webhook-index.js";
import { createUsageSignals } from "./usage-signals.js";
import { createExpiryScan } from "./expiry-scan.js";

export interface WebhookEngineOptions {
  documents: DocumentStore;
  auditLogs: AuditLogStore;
  bus: InvalidationBus;
  clock: Clock;
  wallClock: Clock;
  randomBytes: RandomBytes;
  encryptionKey?: Buffer;
  allowPrivate: boolean;
  retentionDays: number;
  /** KEYWARD_WEBHOOKS_RETRY_SCALE: retry delays and poll intervals multiplied by it (tests). */
  scale: number;
  /** Records that may land late in the audit log (MongoDB: several instances' clocks); 0 on the embedded store. */
  lateWindowMs: number;
  log?: (line: string) => void;
}

/**
 * Everything that moves webhook messages: the in-memory index of endpoints, `emit` for usage signals, the fan-out
 * of the audit log, the dispatcher, and pruning of old messages. One per app; `stop` before the stores close.
 */
export function createWebhookEngine(options: WebhookEngineOptions) {
  const log = options.log ?? ((line: string) => console.error(line));
  const index = createWebhookIndex({ documents: options.documents, bus: options.bus, log });
  const messages = options.documents.webhookMessages;
  const sender = createSender({ allowPrivate: options.allowPrivate });

  /** Queues an event for every endpoint of its workspace that wants it (or those of `only`); resolves once stored. */
  async function enqueue(event: WebhookEvent, only?: readonly { id: string }[]): Promise<void> {
    const subscribers = only ?? index.subscribers(event.workspaceId, event.type, event.apiId);
    if (subscribers.length === 0) return;
    const now = options.clock.now();
    await messages.enqueue(subscribers.map((w) => messageFor(event, w.id, now, options.randomBytes)));
    dispatcher.nudge();
  }

  const dispatcher = createDispatcher({
    documents: options.documents, clock: options.clock, wallClock: options.wallClock, encryptionKey: options.encryptionKey,
    sender, index, scale: options.scale, retentionMs: options.retentionDays * 86_400_000, log,
    disabled: (webhook: WebhookRecord, now: number) =>
      enqueue({ type: "webhook.disabled", workspaceId: webhook.workspaceId, time: now, data: { webhookId: webhook.id, url: webhook.url } }),
  });
  const fanout = createAuditFanout({
    auditLogs: options.auditLogs, messages, index, clock: options.clock, randomBytes: options.randomBytes, lateWindowMs: options.lateWindowMs,
  });

  const pollMs = Math.max(10, Math.round(1000 * options.scale));
  const emitLogged = (event: WebhookEvent, only?: readonly { id: string }[]) =>
    void enqueue(event, only).catch((error: unknown) => log(`webhooks: cannot queue ${event.type}: ${(error as Error).message}`));
  const expiries = createExpiryScan({ keys: options.documents.keyExpiries, index, clock: options.clock, emit: emitLogged });
  const scanTimer = setInterval(
    () => void expiries.run().catch((error: unknown) => log(`webhooks: expiry scan failed: ${(error as Error).message}`)),
    Math.max(10, Math.round(60_000 * options.scale)),
  );
  scanTimer.unref();
  let stopped = false;
  let fanning: Promise<void> | undefined;
  let fanTimer: NodeJS.Timeout | undefined;
  function fanLoop(delay: number): void {
    if (stopped) return;
    fanTimer = setTimeout(() => {
      fanning = fanout.run()
        .then(() => dispatcher.nudge())
        .catch((error: unknown) => log(`webhooks: cannot read the audit log: ${(error as Error).message}`))
        .finally(() => {
          fanning = undefined;
          fanLoop(pollMs);
        });
    }, delay);
    fanTimer.unref();
  }
  const retentionMs = options.retentionDays * 86_400_000;
  const prune = () => void messages.prune(options.clock.now() - retentionMs).catch((error: unknown) => log(`webhooks: pruning failed: ${(error as Error).message}`));
  const pruneTimer = setInterval(prune, 3_600_000);
  pruneTimer.unref();

  const started = index.loadAll().then(() => {
    prune();
    fanLoop(0);
    dispatcher.start();
  }).catch((error: unknown) => log(`webhooks: cannot load the endpoints: ${(error as Error).message}`));

  const usage = createUsageSignals({ index, emit: emitLogged });

  return {
    index,
    /** What verification and standalone rate limits hand their results to. */
    usage,
    /** Resolves once the index is loaded and the loops run. */
    started,
    /**
     * Queues a usage signal without making the caller wait or fail: the verification path hands its crossings here
     * and goes on. A store failure is logged, never thrown.
     */
    emit: emitLogged,
    nudge: () => dispatcher.nudge(),
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(fanTimer);
      clearInterval(pruneTimer);
      clearInterval(scanTimer);
      index.close();
      await fanning;
      await dispatcher.stop();
      sender.close();
    },
  };
}

export type WebhookEngine = ReturnType<typeof createWebhookEngine>;
