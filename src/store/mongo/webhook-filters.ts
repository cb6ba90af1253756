/** Pure filters and updates of the MongoDB webhook adapter (webhooks.ts hands them to the driver). */
import type { Document } from "mongodb";
import type { DeliveryQuery, Settlement } from "../ports/webhooks.js";

/** Pending, due at `now`, and not leased (or its lease expired): what a dispatcher may take. */
export function dueFilter(now: number): Document {
  return { status: "pending", nextAttemptAt: { $lte: now }, $or: [{ leaseUntil: { $exists: false } }, { leaseUntil: { $lte: now } }] };
}

export function leaseUpdate(owner: string, until: number): Document {
  return { $set: { leaseOwner: owner, leaseUntil: until } };
}

/** An attempt's outcome; the attempt is pushed at the head of the history, which keeps `keep` entries. */
export function settleUpdate(s: Settlement, keep: number): Document {
  const update: Document = {
    $set: {
      status: s.status, attempts: s.attempts, nextAttemptAt: s.nextAttemptAt,
      ...(s.deliveredAt !== undefined && { deliveredAt: s.deliveredAt }),
      ...(s.finishedAt !== undefined && { finishedAt: s.finishedAt }),
    },
    $unset: { leaseOwner: "", leaseUntil: "" },
  };
  if (s.attempt) update.$push = { history: { $each: [s.attempt], $position: 0, $slice: keep } };
  return update;
}

export function retryUpdate(now: number): Document {
  return { $set: { status: "pending", nextAttemptAt: now }, $unset: { leaseOwner: "", leaseUntil: "", finishedAt: "" } };
}

/** One endpoint's messages, newest first, keyset-paginated downwards. */
export function deliveriesFilter(workspaceId: string, webhookId: string, query: DeliveryQuery): Document {
  return {
    webhookId,
    workspaceId,
    ...(query.status !== undefined && { status: query.status }),
    ...(query.before !== undefined && { _id: { $lt: query.before } }),
  };
}
