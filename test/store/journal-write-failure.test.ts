import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { openJournal } from "../../src/store/embedded/journal.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const writer = fileURLToPath(new URL("./fixtures/full-disk-writer.ts", import.meta.url));
const dirs: string[] = [];

afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("embedded journal when an append fails", () => {
  for (const mode of ["interval", "always"] as const) {
    it(`rejects the failed batch's commits and every later one, and a reopen keeps each acknowledged commit (sync ${mode})`, async () => {
      const dir = await mkdtemp(join(tmpdir(), "keyward-full-disk-"));
      dirs.push(dir);
      // 64 KiB per file: the appends fail with EFBIG, the one that crosses the limit after writing part of its batch.
      const child = spawnSync("bash", ["-c", `ulimit -f 128; exec "${process.execPath}" --import tsx "${writer}" "${dir}" ${mode}`], {
        cwd: repo,
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(child.status, child.stderr).toBe(0);
      const lines = child.stdout.trim().split("\n");
      const acked = lines.filter((l) => l.startsWith("ack ")).map((l) => Number(l.split(" ")[1]));
      const failed = lines.filter((l) => l.startsWith("fail "));
      expect(acked.length).toBeGreaterThan(100);
      expect(failed).toHaveLength(16);
      for (const line of failed) expect(line).toMatch(/^fail \d+ embedded store write failed; restart to recover$/);
      expect(lines.at(-1)).toBe("after embedded store write failed; restart to recover");

      const journal = await openJournal({ dir, collections: { docs: {} } });
      try {
        const stored = new Set(journal.scan<{ id: string; n: number }>("docs").map((d) => d.n));
        for (const n of acked) expect(stored.has(n), `acknowledged commit ${n}`).toBe(true);
        expect(journal.get("docs", "after")).toBeUndefined();
        // The torn end of the failed batch was dropped, so appends work again.
        await journal.commit([{ op: "put", collection: "docs", doc: { id: "again" } as never }]);
        expect(journal.get("docs", "again")).toEqual({ id: "again" });
      } finally {
        await journal.close();
      }
    });
  }
});
