import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restClient } from "../support/rest.js";
import { keyward, keywardJson, startServerProcess, tempDataDir, type ServerProcess } from "./keyward-cli.js";

// The CLI and a real server (src/main.ts as its own process) on one data dir: what the CLI writes is what the
// server authenticates, and the CLI stays out while the server holds the store.
describe("keyward and a running server", () => {
  let dirs: Awaited<ReturnType<typeof tempDataDir>>;
  let server: ServerProcess | undefined;
  let workspace: { workspaceId: string; rootKey: { keyId: string; key: string } };
  let restricted: { keyId: string; key: string };
  let revoked: { keyId: string; key: string };

  beforeAll(async () => {
    dirs = await tempDataDir();
    workspace = await keywardJson(["workspace", "create", "--name", "acme"], dirs);
    const create = (permission: string) =>
      keywardJson(["root-key", "create", "--workspace", workspace.workspaceId, "--permission", permission], dirs);
    restricted = await create("rootkey.*.read_root_key");
    revoked = await create("rootkey.*.read_root_key");
    expect((await keyward(["root-key", "revoke", "--workspace", workspace.workspaceId, "--id", revoked.keyId], dirs)).code).toBe(0);
    server = await startServerProcess({ dataDir: dirs.dataDir });
  });
  afterAll(async () => {
    await server?.stop();
    await dirs.remove();
  });

  it("serves keys the CLI created: the workspace key holds everything, a restricted key only its grants", async () => {
    const rest = restClient(server!.baseUrl);
    // No bootstrap key was printed: the CLI's workspace already had a root key.
    expect(server!.output()).not.toContain("kw_root_");

    const api = await rest.v2("apis.createApi", { name: "cli-made" }, workspace.rootKey.key);
    expect(api.status).toBe(200);
    expect(api.body.data.apiId).toMatch(/^api_\w+$/);

    const listed = await rest.v2("rootKeys.listRootKeys", {}, restricted.key);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((k: { keyId: string }) => k.keyId)).toEqual([workspace.rootKey.keyId, restricted.keyId]);

    const forbidden = await rest.v2("apis.createApi", { name: "not-allowed" }, restricted.key);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.detail).toBe("Missing permission: api.*.create_api");
  });

  it("refuses the key the CLI revoked with 401", async () => {
    const result = await restClient(server!.baseUrl).v2("rootKeys.listRootKeys", {}, revoked.key);
    expect(result.status).toBe(401);
    expect(result.body.error.detail).toBe("The root key is unknown or revoked.");
  });

  it("exits 2 naming the server's pid while the server holds the data dir, and writes nothing", async () => {
    const create = await keyward(
      ["root-key", "create", "--workspace", workspace.workspaceId, "--permission", "api.*.read_api"],
      dirs,
    );
    expect(create).toEqual({
      code: 2,
      stdout: "",
      stderr:
        `keyward: the data dir ${dirs.dataDir} is in use by a running Keyward (pid ${server!.pid}); ` +
        "stop it, or use the API: POST /v2/rootKeys.createRootKey\n",
    });
    const json = await keyward(["workspace", "create", "--name", "second", "--json"], dirs);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        message: `the data dir ${dirs.dataDir} is in use by a running Keyward (pid ${server!.pid}); ` +
          "stop it, or use the API: POST /v2/workspaces.createWorkspace",
      },
    });

    const listed = await restClient(server!.baseUrl).v2("rootKeys.listRootKeys", {}, workspace.rootKey.key);
    expect(listed.body.data.map((k: { keyId: string }) => k.keyId)).toEqual([workspace.rootKey.keyId, restricted.keyId]);

    // Once the server has stopped, the CLI opens the store again.
    expect(await server!.stop()).toBe(0);
    server = undefined;
    const after = await keywardJson(["root-key", "list", "--workspace", workspace.workspaceId], dirs);
    expect(after.rootKeys.map((k: { keyId: string }) => k.keyId)).toEqual([workspace.rootKey.keyId, restricted.keyId]);
  });
});
