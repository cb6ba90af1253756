import type { WebhooksService } from "../../../gen/keyward/v1/webhooks_pb.js";
import type { Clock } from "../../domain/clock.js";
import { invalid, KeywardError, notFound, type Violation } from "../../domain/errors.js";
import { newId, type RandomBytes } from "../../domain/ids.js";
import { TEST_EVENT } from "../../domain/webhooks/events.js";
import { newSecret } from "../../domain/webhooks/signature.js";
import { ROTATION_OVERLAP_MS, sealSecret } from "./webhook-secrets.js";
import { eventViolations, thresholdViolations, urlProblem, type ThresholdInput } from "../../domain/webhooks/webhook-input.js";
import type { DocumentStore } from "../../store/ports/documents.js";
import type { WebhookRecord } from "../../store/ports/webhooks.js";
import { authorize, type Principal, type ServiceHandlers } from "../context.js";
import { decodeCursor, encodeCursor, paginate } from "../pagination.js";
import { messageFor } from "./messages.js";
import { deliveryView, thresholdsRecord, webhookView } from "./webhook-view.js";

export interface WebhooksDeps {
  documents: DocumentStore;
  clock: Clock;
  randomBytes: RandomBytes;
  /** KEYWARD_ENCRYPTION_KEY: secrets are stored encrypted under it; without it endpoints cannot be created. */
  encryptionKey?: Buffer;
  /** Told after every change to a workspace's endpoints: the in-memory index reloads it (here and on other instances). */
  changed(workspaceId: string): Promise<void>;
  /** Told when a message is queued now (sendTest, redeliver): the dispatcher looks sooner than its next poll. */
  nudge?(): void;
}

/** webhooks.*: endpoints of the caller's workspace, their secrets and their deliveries. */
export function createWebhooksService(deps: WebhooksDeps): ServiceHandlers<typeof WebhooksService> {
  const { documents, clock } = deps;

  function masterKey(): Buffer {
    if (!deps.encryptionKey) {
      throw new KeywardError("precondition", "Webhooks need KEYWARD_ENCRYPTION_KEY: their signing secrets are stored encrypted, never in plaintext.");
    }
    return deps.encryptionKey;
  }

  /** An endpoint of the caller's workspace, after the check of `webhook.*.<action>` or `webhook.<id>.<action>`. */
  async function load(principal: Principal, webhookId: string, action: string): Promise<WebhookRecord> {
    const record = await documents.webhooks.get(principal.workspaceId, webhookId);
    authorize(principal, { resourceType: "webhook", action, resourceId: record?.id ?? webhookId });
    if (!record) throw notFound(`The webhook ${webhookId} does not exist.`);
    return record;
  }

  async function checked(principal: Principal, input: {
    url?: string; events: readonly string[]; thresholds?: readonly ThresholdInput[]; apiId?: string;
  }): Promise<void> {
    const violations: Violation[] = [];
    const problem = input.url === undefined ? undefined : urlProblem(input.url);
    if (problem) violations.push({ location: "url", message: problem });
    violations.push(...eventViolations(input.events), ...thresholdViolations(input.thresholds ?? []));
    if (violations.length > 0) throw invalid(`The webhook is invalid: ${violations.map((v) => `${v.location} ${v.message}`).join("; ")}.`, violations);
    if (input.apiId !== undefined && !(await documents.apis.get(principal.workspaceId, input.apiId))) {
      throw notFound(`The api ${input.apiId} does not exist.`);
    }
  }

  const thresholdInputs = (t: { credits: { remaining?: bigint; percent?: number }[] } | undefined): ThresholdInput[] =>
    (t?.credits ?? []).map((c) => ({
      ...(c.remaining !== undefined && { remaining: Number(c.remaining) }),
      ...(c.percent !== undefined && { percent: c.percent }),
    }));

  return {
    async createWebhook(request, { principal }) {
      authorize(principal, { resourceType: "webhook", action: "create_webhook" });
      await checked(principal, { url: request.url, events: request.events, thresholds: thresholdInputs(request.thresholds), apiId: request.apiId });
      const key = masterKey();
      const now = clock.now();
      const id = newId("wh", now, deps.randomBytes);
      const secret = newSecret(deps.randomBytes);
      await documents.webhooks.insert({
        id,
        workspaceId: principal.workspaceId,
        url: request.url,
        events: [...request.events],
        ...(request.apiId !== undefined && { apiId: request.apiId }),
        ...(request.description && { description: request.description }),
        thresholds: thresholdsRecord(request.thresholds),
        enabled: true,
        secrets: [sealSecret(key, secret, id)],
        createdAt: now,
      });
      await deps.changed(principal.workspaceId);
      return { webhookId: id, secret };
    },

    async getWebhook(request, { principal }) {
      return { webhook: webhookView(await load(principal, request.webhookId, "read_webhook"), clock.now()) };
    },

    async listWebhooks(request, { principal }) {
      authorize(principal, { resourceType: "webhook", action: "read_webhook" });
      const page = await paginate(request, (p) => documents.webhooks.list(principal.workspaceId, p));
      const now = clock.now();
      return { data: page.items.map((w) => webhookView(w, now)), pagination: { cursor: page.cursor, hasMore: page.hasMore } };
    },

    async updateWebhook(request, { principal }) {
      const current = await load(principal, request.webhookId, "update_webhook");
      await checked(principal, { url: request.url, events: request.events, thresholds: thresholdInputs(request.thresholds) });
      const now = clock.now();
      const next: WebhookRecord = {
        ...current,
        ...(request.url !== undefined && { url: request.url }),
        ...(request.events.length > 0 && { events: [...request.events] }),
        ...(request.thresholds !== undefined && { thresholds: thresholdsRecord(request.thresholds) }),
        updatedAt: now,
      };
      if (request.description !== undefined) {
        if (request.description === "") delete next.description;
        else next.description = request.description;
      }
      if (request.enabled !== undefined) {
        next.enabled = request.enabled;
        if (request.enabled) delete next.disabledReason;
        else next.disabledReason = "paused";
      }
      if (!(await documents.webhooks.replace(next))) throw notFound(`The webhook ${request.webhookId} does not exist.`);
      await deps.changed(principal.workspaceId);
      return { webhook: webhookView(next, now) };
    },

    async deleteWebhook(request, { principal }) {
      await load(principal, request.webhookId, "delete_webhook");
      if (!(await documents.webhooks.delete(principal.workspaceId, request.webhookId))) {
        throw notFound(`The webhook ${request.webhookId} does not exist.`);
      }
      await deps.changed(principal.workspaceId);
      return {};
    },

    async rotateSecret(request, { principal }) {
      const current = await load(principal, request.webhookId, "update_webhook");
      const key = masterKey();
      const now = clock.now();
      const expiresAt = now + ROTATION_OVERLAP_MS;
      const secret = newSecret(deps.randomBytes);
      // Only the secret being replaced stays, for the overlap; an older one still overlapping is dropped.
      const [previous] = current.secrets.filter((s) => s.expiresAt === undefined);
      const next: WebhookRecord = {
        ...current,
        secrets: [sealSecret(key, secret, current.id), ...(previous ? [{ ...previous, expiresAt }] : [])],
        updatedAt: now,
      };
      if (!(await documents.webhooks.replace(next))) throw notFound(`The webhook ${request.webhookId} does not exist.`);
      await deps.changed(principal.workspaceId);
      return { secret, previousSecretExpiresAt: BigInt(expiresAt) };
    },

    async listDeliveries(request, { principal }) {
      const webhook = await load(principal, request.webhookId, "read_webhook");
      const limit = request.limit ?? 100;
      const rows = await documents.webhookMessages.listByWebhook(principal.workspaceId, webhook.id, {
        status: request.status as "pending" | "delivered" | "failed" | undefined, limit: limit + 1, before: decodeCursor(request.cursor),
      });
      const items = rows.slice(0, limit);
      const hasMore = rows.length > limit;
      return {
        data: items.map(deliveryView),
        pagination: { hasMore, cursor: hasMore ? encodeCursor(items[items.length - 1].id) : undefined },
      };
    },

    async redeliver(request, { principal }) {
      const webhook = await load(principal, request.webhookId, "update_webhook");
      const message = await documents.webhookMessages.get(principal.workspaceId, request.messageId);
      if (!message || message.webhookId !== webhook.id) throw notFound(`The message ${request.messageId} does not exist.`);
      await documents.webhookMessages.retry(principal.workspaceId, message.id, clock.now());
      deps.nudge?.();
      return {};
    },

    async sendTest(request, { principal }) {
      const webhook = await load(principal, request.webhookId, "update_webhook");
      const now = clock.now();
      const message = messageFor(
        { type: TEST_EVENT, workspaceId: principal.workspaceId, time: now, data: { webhookId: webhook.id } }, webhook.id, now, deps.randomBytes,
      );
      await documents.webhookMessages.enqueue([message]);
      deps.nudge?.();
      return { messageId: message.id };
    },
  };
}
