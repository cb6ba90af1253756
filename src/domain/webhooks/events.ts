import { AUDIT_ACTIONS, CLI_AUDIT_ACTIONS, NAMESPACE_CREATE_ACTION } from "../audit-actions.js";

/** Usage signals: fired from counter results and scans, not from the audit log. */
export const USAGE_EVENTS = [
  "key.credits.low", "key.credits.exhausted", "key.expiring", "key.expired", "key.ratelimited", "ratelimit.exceeded",
] as const;

/** Sent by Keyward about the endpoint itself: disabled after persistent failure. */
export const ENDPOINT_EVENTS = ["webhook.disabled"] as const;

/** The type of a sendTest message; delivered whatever the endpoint subscribes to, so it is not subscribable. */
export const TEST_EVENT = "webhook.test";

/**
 * Audit actions written by the document view itself (a creation or deletion whatever call made it) beside the
 * per-RPC ones of AUDIT_ACTIONS: see AUDITED_WRITES in src/store/audit/audited-documents.ts.
 */
const WRITE_ACTIONS = [
  "api.create", "api.delete", "key.create", "key.delete", "identity.create", "identity.delete", "permission.create",
  "permission.delete", "role.create", "role.delete", "rootKey.create", "rootKey.delete", "ratelimitNamespace.create",
  "workspace.create", "webhook.create", "webhook.delete",
];

/** Every event type an endpoint may subscribe to, sorted: each audit action under its name, and the usage signals. */
export const WEBHOOK_EVENTS: readonly string[] = [...new Set([
  ...Object.values(AUDIT_ACTIONS), ...Object.values(CLI_AUDIT_ACTIONS), NAMESPACE_CREATE_ACTION, ...WRITE_ACTIONS,
  ...USAGE_EVENTS, ...ENDPOINT_EVENTS,
])].sort();

const KNOWN = new Set(WEBHOOK_EVENTS);

export const isWebhookEvent = (name: string): boolean => KNOWN.has(name);
