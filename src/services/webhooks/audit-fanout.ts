import type { Clock } from "../../domain/clock.js";
import { newId, type RandomBytes } from "../../domain/ids.js";
import type { AuditLogStore, AuditRecord } from "../../store/ports/audit.js";
import type { WebhookMessageStore } from "../../store/ports/webhooks.js";
import { messageFor, type WebhookEvent } from "./messages.js";
import type { WebhookIndex } from "./webhook-index.js";

const PAGE = 500;

/** The webhook event of an audit record: its action is the type; the message id derives from the record's id. */
export function auditEvent(record: AuditRecord): WebhookEvent {
  return {
    type: record.action,
    workspaceId: record.workspaceId,
    time: record.time,
    apiId: record.resources.find((r) => r.type === "api")?.id,
    dedupeKey: `audit\n${record.id}`,
    data: {
      auditLogId: record.id, actor: record.actor, resources: record.resources,
      ...(record.requestId !== undefined && { requestId: record.requestId }),
    },
  };
}

/**
 * Turns the audit log into webhook messages: the audit log is the outbox of every audited change (its record is in
 * the change's own commit on the embedded store), read after a durable cursor. Each page's messages and the cursor
 * past it are stored together (embedded: one commit), so a crash re-reads a page and never skips one; message ids
 * derive from the record id, so a re-read (or another instance reading the same page) stores nothing twice.
 *
 * MongoDB: instances mint record ids from their own clocks and insert them right after the change, so a record can
 * land a little after one with a later id. The cursor therefore stays `lateWindowMs` behind the newest record;
 * the records inside that window are fanned out at once but read again until the cursor passes them (a set of
 * those done keeps the re-reads cheap). A record inserted later than that after its id's time is not sent.
 */
export function createAuditFanout(deps: {
  auditLogs: AuditLogStore; messages: WebhookMessageStore; index: WebhookIndex; clock: Clock; randomBytes: RandomBytes;
  lateWindowMs: number;
}) {
  let cursor: string | undefined;
  let loaded = false;
  const recent = new Set<string>();

  async function messagesOf(records: readonly AuditRecord[], now: number) {
    return records.flatMap((record) => {
      if (recent.has(record.id)) return [];
      const event = auditEvent(record);
      // An endpoint hears of what happened after it was created, not the workspace's history.
      return deps.index.subscribers(record.workspaceId, record.action, event.apiId)
        .filter((w) => w.createdAt <= record.time)
        .map((w) => messageFor(event, w.id, now, deps.randomBytes));
    });
  }

  /** Fans out everything after the cursor; resolves when caught up. */
  async function run(): Promise<void> {
    if (!loaded) {
      // First start ever: begin a minute back rather than at the beginning of the workspace's history.
      cursor = (await deps.messages.cursor()) ?? newId("log", deps.clock.now() - 60_000, () => new Uint8Array(10));
      loaded = true;
    }
    for (;;) {
      const records = await deps.auditLogs.since(cursor, PAGE);
      if (records.length === 0) return;
      const now = deps.clock.now();
      const settledBefore = now - deps.lateWindowMs;
      let next = cursor;
      for (const record of records) {
        if (deps.lateWindowMs > 0 && record.time > settledBefore) break;
        next = record.id;
      }
      await deps.messages.enqueue(await messagesOf(records, now), { cursor: next });
      // Records the cursor did not pass are re-read next time: remember them; forget those it passed.
      for (const record of records) {
        if (next !== undefined && record.id <= next) recent.delete(record.id);
        else recent.add(record.id);
      }
      if (next === cursor || records.length < PAGE) {
        cursor = next;
        return;
      }
      cursor = next;
    }
  }

  return { run };
}
