import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { ApisService } from "../../../gen/keyward/v1/apis_pb.js";
import { KeysService } from "../../../gen/keyward/v1/keys_pb.js";
import { RatelimitService } from "../../../gen/keyward/v1/ratelimits_pb.js";
import { RootKeysService } from "../../../gen/keyward/v1/root_keys_pb.js";
import { WorkspacesService } from "../../../gen/keyward/v1/workspaces_pb.js";
import { callWithDeadline, useDeadlineServer, WIRES, type Deadline } from "./wires.js";

const CALLS = 50;

describe("a call whose deadline has passed on arrival does nothing", () => {
  const { harness, calls, target, forgetCalls } = useDeadlineServer();
  const apiCount = async () => (await harness.keyward.documents.apis.list(harness.keyward.workspaceId, { limit: 1000 })).length;

  /** Whatever the transport answered, waits for any handler still running, then asserts nothing was started or written. */
  async function expectNothingDone() {
    await calls.handlers.settled();
    expect({ handlers: calls.handlers.started.map((s) => s.rpc), documents: harness.writes.writes, counters: calls.counterWrites })
      .toEqual({ handlers: [], documents: [], counters: [] });
  }

  it(`${CALLS} CreateApi calls over gRPC with grpc-timeout 1n all answer DEADLINE_EXCEEDED and create no api`, async () => {
    const before = await apiCount();
    const answers = await Promise.all(
      Array.from({ length: CALLS }, (_, i) => callWithDeadline(target(), "grpc", ApisService.method.createApi, { name: `late-grpc-${i}` }, "expired")),
    );
    expect(answers.map((a) => a.code)).toEqual(Array(CALLS).fill(Code.DeadlineExceeded));
    await expectNothingDone();
    expect(await apiCount()).toBe(before);
  });

  it(`${CALLS} CreateApi calls over Connect with connect-timeout-ms 0 all answer deadline_exceeded and create no api`, async () => {
    const before = await apiCount();
    const answers = await Promise.all(
      Array.from({ length: CALLS }, (_, i) => callWithDeadline(target(), "connect", ApisService.method.createApi, { name: `late-connect-${i}` }, "expired")),
    );
    expect(answers.map((a) => a.code)).toEqual(Array(CALLS).fill(Code.DeadlineExceeded));
    await expectNothingDone();
    expect(await apiCount()).toBe(before);
  });

  it("gRPC-Web and gzipped Connect (served by connect-node) refuse an expired CreateApi the same way", async () => {
    const before = await apiCount();
    for (const wire of ["grpc-web", "connect-gzip"] as const) {
      const answer = await callWithDeadline(target(), wire, ApisService.method.createApi, { name: `late-${wire}` }, "expired");
      expect({ wire, code: answer.code, detail: answer.detail }).toEqual({
        wire, code: Code.DeadlineExceeded, detail: "the deadline passed before the call ran; nothing was done",
      });
    }
    await expectNothingDone();
    expect(await apiCount()).toBe(before);
  });

  it("CreateKey, CreateRootKey and CreateWorkspace with an expired deadline create nothing (no secret is minted and lost)", async () => {
    const apiId = await harness.seed.api();
    const workspacesBefore = (await harness.snapshot()).workspaces.length;
    forgetCalls();
    for (const wire of WIRES) {
      const answers = await Promise.all([
        callWithDeadline(target(), wire, KeysService.method.createKey, { apiId, credits: { remaining: 10n } }, "expired"),
        callWithDeadline(target(), wire, RootKeysService.method.createRootKey, { permissions: ["api.*.read_api"] }, "expired"),
        callWithDeadline(target(), wire, WorkspacesService.method.createWorkspace, { name: `late-${wire}` }, "expired"),
      ]);
      expect({ wire, codes: answers.map((a) => a.code), messages: answers.map((a) => a.message) })
        .toEqual({ wire, codes: Array(3).fill(Code.DeadlineExceeded), messages: Array(3).fill(undefined) });
    }
    await expectNothingDone();
    expect(await harness.keyward.documents.keys.listByApi(harness.keyward.workspaceId, apiId, { limit: 10 })).toEqual([]);
    expect((await harness.snapshot()).workspaces.length).toBe(workspacesBefore);
  });

  it("VerifyKey with an expired deadline answers DEADLINE_EXCEEDED, not VALID, and the key's credits are unchanged", async () => {
    const apiId = await harness.seed.api();
    const { key } = await harness.seed.key(apiId, { credits: { remaining: 10 } });
    forgetCalls();
    for (const wire of WIRES) {
      const answer = await callWithDeadline(target(), wire, KeysService.method.verifyKey, { key }, "expired");
      expect({ wire, code: answer.code, message: answer.message }).toEqual({ wire, code: Code.DeadlineExceeded, message: undefined });
    }
    await expectNothingDone();
    const after = await callWithDeadline(target(), "grpc", KeysService.method.verifyKey, { key }, "generous");
    expect({ code: after.code, valid: after.message?.valid, credits: after.message?.credits }).toEqual({ code: 0, valid: true, credits: 9n });
  });

  it("a rate-limit check with an expired deadline counts nothing and creates no namespace", async () => {
    const check = { namespace: "late-ns", identifier: "user_1", limit: 10n, duration: 60_000n };
    for (const wire of WIRES) {
      const answer = await callWithDeadline(target(), wire, RatelimitService.method.limit, check, "expired");
      expect({ wire, code: answer.code }).toEqual({ wire, code: Code.DeadlineExceeded });
    }
    await expectNothingDone();
    const after = await callWithDeadline(target(), "grpc", RatelimitService.method.limit, check, "generous");
    expect({ code: after.code, success: after.message?.success, remaining: after.message?.remaining }).toEqual({ code: 0, success: true, remaining: 9n });
  });
});

describe("a call with a generous deadline is served as before", () => {
  const { harness, target } = useDeadlineServer();

  it("creates an api, a key that verifies, a root key and a workspace, and counts a verification, on every wire", async () => {
    for (const wire of WIRES) {
      const deadline: Deadline = "generous";
      const api = await callWithDeadline(target(), wire, ApisService.method.createApi, { name: `on-time-${wire}` }, deadline);
      expect({ wire, code: api.code }).toEqual({ wire, code: 0 });
      const apiId = api.message!.apiId;
      expect((await harness.keyward.documents.apis.get(harness.keyward.workspaceId, apiId))?.name).toBe(`on-time-${wire}`);

      const created = await callWithDeadline(target(), wire, KeysService.method.createKey, { apiId, credits: { remaining: 5n } }, deadline);
      expect({ wire, code: created.code, keyId: created.message?.keyId }).toEqual({ wire, code: 0, keyId: expect.stringMatching(/^key_/) });
      for (const credits of [4n, 3n]) {
        const verified = await callWithDeadline(target(), wire, KeysService.method.verifyKey, { key: created.message!.key }, deadline);
        expect({ wire, code: verified.code, valid: verified.message?.valid, credits: verified.message?.credits })
          .toEqual({ wire, code: 0, valid: true, credits });
      }

      const rootKey = await callWithDeadline(target(), wire, RootKeysService.method.createRootKey, { permissions: ["api.*.read_api"] }, deadline);
      expect({ wire, code: rootKey.code, key: rootKey.message?.key.length }).toEqual({ wire, code: 0, key: expect.any(Number) });
      const workspace = await callWithDeadline(target(), wire, WorkspacesService.method.createWorkspace, { name: `on-time-${wire}` }, deadline);
      expect({ wire, code: workspace.code, workspaceId: workspace.message?.workspaceId })
        .toEqual({ wire, code: 0, workspaceId: expect.stringMatching(/^ws_/) });
    }
  });
});
