import { setTimeout as delay } from "node:timers/promises";
import { Code } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import { ApisService } from "../../../gen/keyward/v1/apis_pb.js";
import { KeysService } from "../../../gen/keyward/v1/keys_pb.js";
import { DeadlineExceededError } from "../../../src/services/context.js";
import { callWithDeadline, useDeadlineServer, type Wire } from "./wires.js";

// Long enough for a call to reach its handler on a busy machine; each case below waits it out once.
const DEADLINE_MS = 400;

/**
 * Holds the next call of `target[method]` (only that one) until `release()`; `reached` resolves when it arrives.
 * The store is the one under the app, so the hold sits exactly where the store is asked to read or write.
 */
function holdNext<T extends object>(target: T, method: keyof T & string) {
  const store = target as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const original = store[method];
  let reached!: () => void;
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => (reached = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  store[method] = async (...args) => {
    store[method] = original;
    reached();
    await released;
    return original.apply(target, args);
  };
  return { arrived, release, restore: () => void (store[method] = original) };
}

describe("a deadline that passes while the call runs", () => {
  const { harness, calls, target } = useDeadlineServer();
  let apiId: string;

  beforeAll(async () => {
    apiId = await harness.seed.api();
  });
  const keysOfApi = async () => (await harness.keyward.documents.keys.listByApi(harness.keyward.workspaceId, apiId, { limit: 100 })).length;

  for (const wire of ["grpc", "connect"] as Wire[]) {
    it(`${wire}: a CreateKey answered DEADLINE_EXCEEDED while it was still reading writes nothing afterwards`, async () => {
      const before = await keysOfApi();
      const read = holdNext(harness.keyward.documents.apis, "get");
      try {
        const answer = callWithDeadline(target(), wire, KeysService.method.createKey, { apiId, credits: { remaining: 10n } }, { ms: DEADLINE_MS });
        await read.arrived;
        // The transport's timer answers while the handler waits on its read.
        expect((await answer).code).toBe(Code.DeadlineExceeded);
      } finally {
        read.release();
        read.restore();
      }
      const [outcome] = await calls.handlers.settled();
      expect(outcome).toEqual({ status: "rejected", reason: expect.any(DeadlineExceededError) });
      expect({ documents: harness.writes.writes, counters: calls.counterWrites }).toEqual({ documents: [], counters: [] });
      expect(await keysOfApi()).toBe(before);
    });

    it(`${wire}: a CreateApi that began writing before its deadline is answered with the api it wrote`, async () => {
      const write = holdNext(harness.keyward.documents.apis, "insert");
      let answer;
      try {
        const sent = performance.now();
        answer = callWithDeadline(target(), wire, ApisService.method.createApi, { name: `committing-${wire}` }, { ms: DEADLINE_MS });
        await write.arrived;
        // The write has passed the gate; its deadline now passes (the server's timer fires) while it is held.
        await delay(sent + DEADLINE_MS + 100 - performance.now());
      } finally {
        write.release();
        write.restore();
      }
      const { code, message } = await answer;
      expect(code).toBe(0);
      const stored = await harness.keyward.documents.apis.get(harness.keyward.workspaceId, message!.apiId);
      expect(stored?.name).toBe(`committing-${wire}`);
    });

    it(`${wire}: a VerifyKey whose deadline passes while it consumes answers VALID with the credits it took`, async () => {
      const { key } = await harness.seed.key(apiId, { credits: { remaining: 10 } });
      const consume = holdNext(harness.keyward.stores.counters, "consume");
      let answer;
      try {
        const sent = performance.now();
        answer = callWithDeadline(target(), wire, KeysService.method.verifyKey, { key }, { ms: DEADLINE_MS });
        await consume.arrived;
        await delay(sent + DEADLINE_MS + 100 - performance.now());
      } finally {
        consume.release();
        consume.restore();
      }
      const { code, message } = await answer;
      expect({ code, valid: message?.valid, credits: message?.credits }).toEqual({ code: 0, valid: true, credits: 9n });
      const next = await callWithDeadline(target(), wire, KeysService.method.verifyKey, { key }, "generous");
      expect(next.message?.credits).toBe(8n);
    });
  }

  it("grpc-web (connect-node, which never answers early): a CreateKey whose deadline passed before its write is refused by the write", async () => {
    const before = await keysOfApi();
    const read = holdNext(harness.keyward.documents.apis, "get");
    let answer;
    try {
      const sent = performance.now();
      answer = callWithDeadline(target(), "grpc-web", KeysService.method.createKey, { apiId, credits: { remaining: 10n } }, { ms: DEADLINE_MS });
      await read.arrived;
      await delay(sent + DEADLINE_MS + 100 - performance.now());
    } finally {
      read.release();
      read.restore();
    }
    expect(await answer).toEqual({ code: Code.DeadlineExceeded, detail: "the deadline passed before the call could write; nothing was written" });
    await calls.handlers.settled();
    expect({ documents: harness.writes.writes, counters: calls.counterWrites }).toEqual({ documents: [], counters: [] });
    expect(await keysOfApi()).toBe(before);
  });
});
