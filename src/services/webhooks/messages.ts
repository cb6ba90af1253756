import { createHash } from "node:crypto";
import { newId, type RandomBytes } from "../../domain/ids.js";
import type { WebhookMessageRecord } from "../../store/ports/webhooks.js";

/** An event before it is addressed to endpoints. */
export interface WebhookEvent {
  type: string;
  workspaceId: string;
  /** When it happened, unix ms. */
  time: number;
  data: Record<string, unknown>;
  /** The api the event concerns, if any: endpoints bound to another api do not get it. */
  apiId?: string;
  /**
   * Makes the event fire once: every instance that sees it derives the same message id from this (and the endpoint
   * id), and the store keeps the first. Absent: a fresh random id.
   */
  dedupeKey?: string;
  /** With dedupeKey: the time part of the message id, the same on every instance (e.g. the window's start); default `time`. */
  dedupeTime?: number;
}

/**
 * The message of `event` to one endpoint, pending and due now. Ids are `msg_` ids (time then 80 bits): random, or
 * for deduplicated events the first 80 bits of sha256(dedupeKey, endpoint), so they stay time-sortable.
 */
export function messageFor(event: WebhookEvent, webhookId: string, now: number, randomBytes: RandomBytes): WebhookMessageRecord {
  const tail = event.dedupeKey === undefined
    ? randomBytes
    : () => new Uint8Array(createHash("sha256").update(`${event.dedupeKey}\n${webhookId}`).digest().subarray(0, 10));
  return {
    id: newId("msg", event.dedupeKey === undefined ? event.time : event.dedupeTime ?? event.time, tail),
    workspaceId: event.workspaceId,
    webhookId,
    type: event.type,
    createdAt: event.time,
    data: event.data,
    status: "pending",
    attempts: 0,
    nextAttemptAt: now,
    history: [],
  };
}
