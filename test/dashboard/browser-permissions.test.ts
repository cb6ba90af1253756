import { describe, expect, it } from "vitest";
import { screenshotBoth, useDashboardPage } from "../support/browser.js";
import { useKeyward } from "../support/use-keyward.js";

const h = useKeyward();
const ui = useDashboardPage(() => h.keyward.baseUrl);
const v2 = async (op: string, body: unknown) => (await h.rest.v2(op, body, h.keyward.rootKey)).body;

describe("permissions and roles in a real browser", () => {
  it("lists, creates and deletes permissions and roles, and edits a role's permission set; verification follows", { timeout: 120_000 }, async () => {
    const apiId = await h.seed.api({ name: "rbac-api" });
    await ui.signIn(h.keyward.rootKey, "/permissions");
    await ui.page.getByRole("heading", { name: "Permissions and roles", level: 1 }).waitFor();
    await ui.page.getByRole("cell", { name: "No permissions yet." }).waitFor();

    const newPermission = ui.page.getByRole("form", { name: "Create a permission" });
    await newPermission.getByLabel("Permission name").fill("documents.read");
    await newPermission.getByLabel("Description").fill("Read documents");
    await newPermission.getByRole("button", { name: "Create permission" }).click();
    await ui.page.getByRole("table", { name: "Permissions" }).getByRole("row", { name: /documents\.read/ }).waitFor();
    // The same name again: the API's conflict, in words; nothing added.
    await newPermission.getByLabel("Permission name").fill("documents.read");
    await newPermission.getByRole("button", { name: "Create permission" }).click();
    await ui.page.getByRole("alert").filter({ hasText: /documents\.read/ }).waitFor();
    expect((await v2("permissions.listPermissions", {})).data.map((p: any) => p.name)).toEqual(["documents.read"]);

    const newRole = ui.page.getByRole("form", { name: "Create a role" });
    await newRole.getByLabel("Role name").fill("reader");
    await newRole.getByLabel("Permissions").fill("documents.read");
    await newRole.getByRole("button", { name: "Create role" }).click();
    const roleRow = ui.page.getByRole("table", { name: "Roles" }).getByRole("row", { name: /reader/ });
    await roleRow.waitFor();
    expect(await roleRow.getByRole("textbox", { name: "Permissions of reader" }).inputValue()).toBe("documents.read");

    // A key holding the role passes a documents.read check and fails documents.write, until the role gains it.
    const { key } = await h.seed.key(apiId, { roles: ["reader"] });
    const check = async (permissions: string) => (await v2("keys.verifyKey", { key, permissions })).data.code;
    expect([await check("documents.read"), await check("documents.write")]).toEqual(["VALID", "INSUFFICIENT_PERMISSIONS"]);
    await roleRow.getByRole("textbox", { name: "Permissions of reader" }).fill("documents.read, documents.write");
    await roleRow.getByRole("button", { name: "Save permissions" }).click();
    await expect.poll(() => check("documents.write")).toBe("VALID");
    await ui.page.getByRole("table", { name: "Permissions" }).getByRole("row", { name: /documents\.write/ }).waitFor();
    expect((await v2("permissions.getRole", { role: "reader" })).data.permissions.map((p: any) => p.name).sort()).toEqual(["documents.read", "documents.write"]);
    await screenshotBoth(ui.page, "permissions-01-roles");

    // Search, then delete the role and a permission.
    const search = ui.page.getByRole("search", { name: "Search permissions" });
    await search.getByRole("searchbox", { name: "Search" }).fill("WRITE");
    await search.getByRole("searchbox", { name: "Search" }).press("Enter");
    await expect.poll(() => ui.page.getByRole("table", { name: "Permissions" }).getByRole("row").count()).toBe(2);
    await roleRow.getByRole("button", { name: "Delete" }).click();
    await roleRow.getByRole("button", { name: "Delete role" }).click();
    await ui.page.getByRole("cell", { name: "No roles yet." }).waitFor();
    expect(await check("documents.read")).toBe("INSUFFICIENT_PERMISSIONS");
    const writeRow = ui.page.getByRole("table", { name: "Permissions" }).getByRole("row", { name: /documents\.write/ });
    await writeRow.getByRole("button", { name: "Delete" }).click();
    await writeRow.getByRole("button", { name: "Delete permission" }).click();
    await ui.page.getByRole("cell", { name: "No permission matches “WRITE”." }).waitFor();
    expect((await v2("permissions.listPermissions", {})).data.map((p: any) => p.name)).toEqual(["documents.read"]);
    await screenshotBoth(ui.page, "permissions-02-deleted");
  });

  it("a root key that may only read roles and permissions sees every control disabled, each missing permission named once", { timeout: 60_000 }, async () => {
    expect((await h.rest.v2("permissions.createRole", { name: "viewer" }, h.keyward.rootKey)).status).toBe(200);
    const { key } = await h.seed.rootKey(["rbac.*.read_role", "rbac.*.read_permission"], { name: "rbac-reader" });
    await ui.page.context().clearCookies();
    await ui.page.goto("about:blank");
    await ui.signIn(key, "/permissions");
    const row = ui.page.getByRole("table", { name: "Roles" }).getByRole("row", { name: /viewer/ });
    await row.waitFor();
    for (const [need, button] of [["create_permission", "Create permission"], ["create_role", "Create role"], ["update_role", "Save permissions"]] as const) {
      expect(await ui.page.getByText(`Your root key lacks rbac.*.${need}`).count()).toBe(1);
      const control = (button === "Save permissions" ? row : ui.page).getByRole("button", { name: button });
      expect([await control.isDisabled(), await control.getAttribute("title")]).toEqual([true, `Your root key lacks rbac.*.${need}`]);
    }
    expect(await row.getByRole("button", { name: "Delete" }).isDisabled()).toBe(true);
    for (const need of ["delete_role", "delete_permission"]) expect(await ui.page.getByText(`Your root key lacks rbac.*.${need}`).count()).toBe(1);
    expect(await ui.page.getByRole("form", { name: "Create a role" }).getByLabel("Role name").isDisabled()).toBe(true);
    expect(await ui.page.getByRole("alert").count()).toBe(0);
    await screenshotBoth(ui.page, "permissions-03-restricted");
  });
});
