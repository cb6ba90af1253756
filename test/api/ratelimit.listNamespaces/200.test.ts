import { describe, expect, it } from "vitest";
import { idsOf, listAll, pageOf } from "../../support/list-pages.js";
import { useKeyward } from "../../support/use-keyward.js";
import { REQUEST_ID, V2_AND_RPC, viaClient, type ViaClient } from "../../support/vias.js";

interface Listed {
  id: string;
  name: string;
  createdAt: number;
}

describe("ratelimit.listNamespaces", () => {
  const harness = useKeyward();
  const via = (name: (typeof V2_AND_RPC)[number], rootKey: string) => viaClient(harness.keyward.baseUrl, name, rootKey);
  const names = (pages: { items: Listed[] }[]) => pages.flatMap((p) => p.items.map((n) => n.name));

  /** Creates the namespace by its first limit call and returns its id, read from the store. */
  async function namespace(client: ViaClient, workspaceId: string, name: string): Promise<string> {
    await client.ok("ratelimit.limit", { namespace: name, identifier: "user_1", limit: 10, duration: 60_000 });
    const record = await harness.keyward.documents.ratelimitNamespaces.findByName(workspaceId, name);
    if (!record) throw new Error(`namespace ${name} was not created`);
    return record.id;
  }

  it("pages 8 namespaces by 3 as 3, 3, 2: every namespace once, in id order, the cursor absent on the last page, on every transport", async () => {
    for (const name of V2_AND_RPC) {
      const ws = await harness.seed.workspace(`paging-${name}`);
      const client = via(name, ws.rootKey.key);
      const created: string[] = [];
      for (let i = 0; i < 8; i++) created.push(await namespace(client, ws.workspaceId, `ns.${name}.${i}`));
      const pages = await listAll<Listed>(client, "ratelimit.listNamespaces", { limit: 3 });
      expect(pages.map((p) => p.items.length)).toEqual([3, 3, 2]);
      expect(pages.map((p) => p.hasMore)).toEqual([true, true, false]);
      expect(pages.map((p) => typeof p.cursor)).toEqual(["string", "string", "undefined"]);
      expect(idsOf(pages)).toEqual([...created].sort());
      const whole = await listAll<Listed>(client, "ratelimit.listNamespaces");
      expect(whole).toHaveLength(1);
      expect(idsOf(whole)).toEqual([...created].sort());
    }
  });

  it("describes each namespace by id, name and createdAt; v2 answers {meta, data, pagination:{hasMore}}", async () => {
    for (const name of V2_AND_RPC) {
      const ws = await harness.seed.workspace(`describe-${name}`);
      const client = via(name, ws.rootKey.key);
      harness.clock.advance(1);
      const id = await namespace(client, ws.workspaceId, "email.outbound");
      const [page] = await listAll<Listed>(client, "ratelimit.listNamespaces");
      expect(page.items).toEqual([{ id, name: "email.outbound", createdAt: harness.clock.now() }]);
      expect(id).toMatch(/^rlns_/);
    }
    const ws = await harness.seed.workspace("v2-shape");
    const id = await namespace(via("v2", ws.rootKey.key), ws.workspaceId, "shape");
    const response = await harness.rest.v2("ratelimit.listNamespaces", {}, ws.rootKey.key);
    expect(response.body).toEqual({
      meta: { requestId: expect.stringMatching(REQUEST_ID) },
      data: [{ id, name: "shape", createdAt: harness.clock.now() }],
      pagination: { hasMore: false },
    });
    const empty = await harness.seed.workspace("v2-empty");
    expect((await harness.rest.v2("ratelimit.listNamespaces", {}, empty.rootKey.key)).body.data).toEqual([]);
  });

  it("search keeps the namespaces whose name contains the text, ignoring case and matched literally, paged within the matches", async () => {
    for (const name of V2_AND_RPC) {
      const ws = await harness.seed.workspace(`search-${name}`);
      const client = via(name, ws.rootKey.key);
      for (const ns of ["Email.Outbound", "sms", "email_inbound", "EMAIL-digest", "push", "user(email)+1"]) await namespace(client, ws.workspaceId, ns);
      const all = (await listAll<Listed>(client, "ratelimit.listNamespaces"))[0].items;
      const emails = all.filter((n) => n.name.toLowerCase().includes("email")).map((n) => n.name);
      expect(emails).toHaveLength(4);
      expect(names(await listAll<Listed>(client, "ratelimit.listNamespaces", { search: "email" }))).toEqual(emails);
      const paged = await listAll<Listed>(client, "ratelimit.listNamespaces", { search: "EMAIL", limit: 3 });
      expect(paged.map((p) => p.items.length)).toEqual([3, 1]);
      expect(names(paged)).toEqual(emails);
      expect(names(await listAll<Listed>(client, "ratelimit.listNamespaces", { search: "." }))).toEqual(["Email.Outbound"]);
      expect(names(await listAll<Listed>(client, "ratelimit.listNamespaces", { search: "(email)+" }))).toEqual(["user(email)+1"]);
      expect(names(await listAll<Listed>(client, "ratelimit.listNamespaces", { search: "nothing" }))).toEqual([]);
    }
  });

  it("lists only the caller's workspace: a namespace of the same name elsewhere is not listed", async () => {
    const a = await harness.seed.workspace("scoped-a");
    const b = await harness.seed.workspace("scoped-b");
    const mine = await namespace(via("v2", a.rootKey.key), a.workspaceId, "shared.name");
    const theirs = await namespace(via("v2", b.rootKey.key), b.workspaceId, "shared.name");
    await namespace(via("v2", b.rootKey.key), b.workspaceId, "only.theirs");
    for (const name of V2_AND_RPC) {
      expect(idsOf(await listAll(via(name, a.rootKey.key), "ratelimit.listNamespaces"))).toEqual([mine]);
      expect(idsOf(await listAll(via(name, a.rootKey.key), "ratelimit.listNamespaces", { search: "theirs" }))).toEqual([]);
      expect(idsOf(await listAll(via(name, b.rootKey.key), "ratelimit.listNamespaces"))).not.toContain(mine);
      expect(idsOf(await listAll(via(name, b.rootKey.key), "ratelimit.listNamespaces"))).toContain(theirs);
    }
  });

  it("a root key holding only per-namespace read_namespace grants lists exactly those namespaces of its workspace", async () => {
    const ws = await harness.seed.workspace("granted");
    const admin = via("v2", ws.rootKey.key);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await namespace(admin, ws.workspaceId, `granted.${i}`));
    const foreign = await namespace(via("v2", harness.keyward.rootKey), harness.keyward.workspaceId, "granted.foreign");
    const { key } = await harness.seed.rootKey([
      `ratelimit.${ids[3]}.read_namespace`, `ratelimit.${ids[0]}.read_namespace`, `ratelimit.${ids[4]}.read_namespace`,
      `ratelimit.${foreign}.read_namespace`, `ratelimit.${ids[1]}.read_override`, "ratelimit.*.limit",
    ], { by: ws.rootKey.key });
    for (const name of V2_AND_RPC) {
      const client = via(name, key);
      const pages = await listAll<Listed>(client, "ratelimit.listNamespaces", { limit: 2 });
      expect(pages.map((p) => p.items.length)).toEqual([2, 1]);
      expect(idsOf(pages)).toEqual([ids[0], ids[3], ids[4]].sort());
      expect(idsOf(await listAll(client, "ratelimit.listNamespaces", { search: "granted.4" }))).toEqual([ids[4]]);
      expect(idsOf(await listAll(client, "ratelimit.listNamespaces", { search: "granted.1" }))).toEqual([]);
    }
  });

  it("a cursor from one transport continues the same listing on another", async () => {
    const ws = await harness.seed.workspace("cross-transport");
    for (let i = 0; i < 4; i++) await namespace(via("v2", ws.rootKey.key), ws.workspaceId, `cross.${i}`);
    const first = pageOf<Listed>(await via("v2", ws.rootKey.key).call("ratelimit.listNamespaces", { limit: 2 }));
    const rest = pageOf<Listed>(await via("grpcWeb", ws.rootKey.key).call("ratelimit.listNamespaces", { limit: 2, cursor: first.cursor }));
    expect([...first.items, ...rest.items].map((n) => n.id)).toEqual(idsOf(await listAll(via("connect", ws.rootKey.key), "ratelimit.listNamespaces")));
    expect(rest.hasMore).toBe(false);
  });
});
