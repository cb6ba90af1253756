import { find } from "mingo";
import { describe, expect, it } from "vitest";
import { deliveriesFilter, dueFilter, retryUpdate, settleUpdate } from "../../src/store/mongo/webhook-filters.js";

const messages = [
  { _id: "msg_1", workspaceId: "ws_A", webhookId: "wh_1", status: "pending", nextAttemptAt: 100 },
  { _id: "msg_2", workspaceId: "ws_A", webhookId: "wh_1", status: "pending", nextAttemptAt: 100, leaseUntil: 150, leaseOwner: "a" },
  { _id: "msg_3", workspaceId: "ws_A", webhookId: "wh_1", status: "pending", nextAttemptAt: 100, leaseUntil: 90, leaseOwner: "b" },
  { _id: "msg_4", workspaceId: "ws_A", webhookId: "wh_2", status: "pending", nextAttemptAt: 300 },
  { _id: "msg_5", workspaceId: "ws_A", webhookId: "wh_1", status: "delivered", nextAttemptAt: 50, finishedAt: 60 },
  { _id: "msg_6", workspaceId: "ws_B", webhookId: "wh_1", status: "failed", nextAttemptAt: 50, finishedAt: 60 },
];
const ids = (filter: object) => find(messages, filter).all().map((d: any) => d._id);

describe("mongo webhook filters", () => {
  it("dueFilter takes pending messages due now whose lease is free or expired", () => {
    expect(ids(dueFilter(120))).toEqual(["msg_1", "msg_3"]);
    expect(ids(dueFilter(200))).toEqual(["msg_1", "msg_2", "msg_3"]);
  });

  it("deliveriesFilter keeps to one endpoint of one workspace, by status, below a cursor", () => {
    expect(ids(deliveriesFilter("ws_A", "wh_1", { limit: 10 }))).toEqual(["msg_1", "msg_2", "msg_3", "msg_5"]);
    expect(ids(deliveriesFilter("ws_A", "wh_1", { limit: 10, status: "delivered" }))).toEqual(["msg_5"]);
    expect(ids(deliveriesFilter("ws_A", "wh_1", { limit: 10, before: "msg_3" }))).toEqual(["msg_1", "msg_2"]);
    expect(ids(deliveriesFilter("ws_B", "wh_1", { limit: 10, status: "pending" }))).toEqual([]);
  });

  it("settleUpdate frees the lease and keeps the last attempts first; retryUpdate makes a message due again", () => {
    const attempt = { at: 5, latencyMs: 3, responseCode: 500, error: "HTTP 500" };
    expect(settleUpdate({ status: "pending", attempts: 2, nextAttemptAt: 9, attempt }, 5)).toEqual({
      $set: { status: "pending", attempts: 2, nextAttemptAt: 9 },
      $unset: { leaseOwner: "", leaseUntil: "" },
      $push: { history: { $each: [attempt], $position: 0, $slice: 5 } },
    });
    expect(settleUpdate({ status: "delivered", attempts: 1, nextAttemptAt: 9, deliveredAt: 9, finishedAt: 9 }, 5)).toEqual({
      $set: { status: "delivered", attempts: 1, nextAttemptAt: 9, deliveredAt: 9, finishedAt: 9 },
      $unset: { leaseOwner: "", leaseUntil: "" },
    });
    expect(retryUpdate(42)).toEqual({ $set: { status: "pending", nextAttemptAt: 42 }, $unset: { leaseOwner: "", leaseUntil: "", finishedAt: "" } });
  });
});
