import type { MessageInitShape } from "@bufbuild/protobuf";
import type { CreditThresholdSchema, WebhookDeliverySchema, WebhookSchema, WebhookThresholds as ThresholdsMessage } from "../../../gen/keyward/v1/webhooks_pb.js";
import type { CreditThreshold, WebhookMessageRecord, WebhookRecord, WebhookThresholds } from "../../store/ports/webhooks.js";

/** An endpoint as the API shows it: never a secret, only until when a rotated-out one still signs. */
export function webhookView(record: WebhookRecord, now: number): MessageInitShape<typeof WebhookSchema> {
  const previous = record.secrets.find((s) => s.expiresAt !== undefined && s.expiresAt > now);
  return {
    id: record.id,
    url: record.url,
    events: record.events,
    apiId: record.apiId,
    description: record.description,
    thresholds: {
      credits: record.thresholds.credits.map(thresholdView),
      expiringBeforeMs: record.thresholds.expiringBeforeMs === undefined ? undefined : BigInt(record.thresholds.expiringBeforeMs),
    },
    enabled: record.enabled,
    disabledReason: record.disabledReason,
    createdAt: BigInt(record.createdAt),
    updatedAt: record.updatedAt === undefined ? undefined : BigInt(record.updatedAt),
    previousSecretExpiresAt: previous?.expiresAt === undefined ? undefined : BigInt(previous.expiresAt),
  };
}

function thresholdView(t: CreditThreshold): MessageInitShape<typeof CreditThresholdSchema> {
  return "percent" in t ? { percent: t.percent } : { remaining: BigInt(t.remaining) };
}

/** The request's thresholds as stored (already validated). */
export function thresholdsRecord(message: ThresholdsMessage | undefined): WebhookThresholds {
  const credits: CreditThreshold[] = (message?.credits ?? []).flatMap((t): CreditThreshold[] =>
    t.percent !== undefined ? [{ percent: t.percent }] : t.remaining !== undefined ? [{ remaining: Number(t.remaining) }] : []);
  return {
    credits,
    ...(message?.expiringBeforeMs !== undefined && { expiringBeforeMs: Number(message.expiringBeforeMs) }),
  };
}

/** One message as listDeliveries shows it: its last attempt's code and latency. */
export function deliveryView(message: WebhookMessageRecord): MessageInitShape<typeof WebhookDeliverySchema> {
  const last = message.history[0];
  return {
    id: message.id,
    type: message.type,
    status: message.status,
    attempts: message.attempts,
    createdAt: BigInt(message.createdAt),
    responseCode: last?.responseCode,
    latencyMs: last === undefined ? undefined : Math.round(last.latencyMs),
    lastError: last?.error,
    nextAttemptAt: message.status === "pending" ? BigInt(message.nextAttemptAt) : undefined,
    deliveredAt: message.deliveredAt === undefined ? undefined : BigInt(message.deliveredAt),
    data: message.data as never,
  };
}
