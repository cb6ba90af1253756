import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { useKeyward } from "../support/use-keyward.js";
import { routesOf } from "../../src/transport/rest/routes.js";
import { PERMISSION_CATALOGUE } from "../../src/domain/permissions.js";
import { createApp } from "../../src/app.js";
import type { Operation } from "../../src/services/operation.js";

const DOC = new URL("../../docs/permissions.md", import.meta.url);

/** The rows docs/permissions.md must hold: every RPC with its REST paths and the permission it needs. */
function expectedRows(operations: Operation[]): string[] {
  const routes = routesOf(operations);
  return operations.map((op) => {
    const paths = routes.filter((r) => r.operation === op).map((r) => `\`${r.verb} ${r.path}\``).join(", ");
    const need = op.access.public ? "none" : `\`${op.access.resourceType}.*.${op.access.action}\``;
    return `| \`${op.method.parent.name}/${op.method.name}\` | ${paths} | ${need} |`;
  });
}

describe("docs/permissions.md", () => {
  const harness = useKeyward();

  it("lists every operation with its REST paths and the permission it needs, exactly as the server enforces", async () => {
    const app = createApp({ ...harness.keyward.stores });
    await app.stop();
    const doc = readFileSync(DOC, "utf8");
    const rows = doc.split("\n").filter((line) => line.startsWith("| `") && line.includes("Service/"));
    // PRINT_PERMISSION_ROWS=1 prints the rows to paste after a change to the operations.
    if (process.env.PRINT_PERMISSION_ROWS) console.log(expectedRows(app.operations).join("\n"));
    expect(rows).toEqual(expectedRows(app.operations));
  });

  it("lists every action of the catalogue", () => {
    const doc = readFileSync(DOC, "utf8");
    for (const [type, entry] of Object.entries(PERMISSION_CATALOGUE)) {
      for (const action of entry.actions) expect({ type, action, listed: doc.includes(`\`${action}\``) }).toEqual({ type, action, listed: true });
    }
  });
});
