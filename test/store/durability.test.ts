import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createEmbeddedDocumentStore } from "../../src/store/embedded/documents.js";
import type { DocumentStore } from "../../src/store/ports/documents.js";
import { crashRecords, isWorkspaceStep } from "./fixtures/crash-records.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const writer = fileURLToPath(new URL("./fixtures/crash-writer.ts", import.meta.url));
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/**
 * Runs crash-writer.ts until it has acknowledged at least `acks` writes, then SIGKILLs it while its writes are
 * still streaming and waits for it to be gone. Returns the acknowledged steps.
 */
async function writeThenKill(dir: string, first: number, acks: number): Promise<number[]> {
  const child = spawn(process.execPath, ["--import", "tsx", writer, dir, String(first)], {
    cwd: repo,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const acked: number[] = [];
  let stderr = "";
  let partial = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  // "close", not "exit": acks still in the pipe when the process dies must be read before counting them.
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("close", (_code, signal) => resolve(signal)));
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  child.stdout.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop()!; // a line cut by the kill was never fully reported: ignore it
    for (const line of lines) if (line.startsWith("ack ")) acked.push(Number(line.slice(4)));
    if (acked.length >= acks) child.kill("SIGKILL");
  });
  const signal = await exited;
  clearTimeout(timer);
  expect(signal, `writer died on its own: ${stderr}`).toBe("SIGKILL");
  expect(acked.length, `writer too slow or failing: ${stderr}`).toBeGreaterThanOrEqual(acks);
  return acked;
}

async function expectAllThere(store: DocumentStore, acked: number[]): Promise<void> {
  const missing: number[] = [];
  for (const n of acked) {
    const { api, workspace, rootKey } = crashRecords(n);
    if (isWorkspaceStep(n)) {
      const [ws, key] = [await store.workspaces.get(workspace.id), await store.rootKeys.findByHash(rootKey.hash)];
      if (!ws || !key) missing.push(n);
      else {
        expect(ws).toEqual(workspace);
        expect(key).toEqual(rootKey);
      }
    } else {
      const got = await store.apis.get(api.workspaceId, api.id);
      if (!got) missing.push(n);
      else expect(got).toEqual(api);
    }
  }
  expect(missing).toEqual([]);
}

describe("embedded store durability across SIGKILL", () => {
  it("keeps every acknowledged write, keeps two-document commits whole, and accepts writes again", async () => {
    const dir = await mkdtemp(join(tmpdir(), "keyward-durability-"));
    dirs.push(dir);
    const allAcked: number[] = [];
    // Three crashes into the same directory: later rounds replay a journal whose tail an earlier kill tore.
    for (const [round, first] of [0, 1_000_000, 2_000_000].entries()) {
      const acked = await writeThenKill(dir, first, 400 + round * 700);
      allAcked.push(...acked);

      // The dead writer's lock died with it: reopening takes it.
      const store = await createEmbeddedDocumentStore({ dir });
      await expectAllThere(store, allAcked);

      // Unacknowledged steps may or may not have landed, but never half of a workspace.
      const last = Math.max(...acked);
      for (let n = first; n <= last + 64; n++) {
        if (!isWorkspaceStep(n)) continue;
        const { workspace, rootKey } = crashRecords(n);
        const halves = [await store.workspaces.get(workspace.id), await store.rootKeys.get(workspace.id, rootKey.id)];
        expect(halves.filter(Boolean).length, `step ${n}`).not.toBe(1);
      }

      const after = crashRecords(9_000_000 + round).api;
      await store.apis.insert(after);
      await store.close();
      const check = await createEmbeddedDocumentStore({ dir });
      expect(await check.apis.get(after.workspaceId, after.id)).toEqual(after);
      await check.close();
    }
  }, 120_000);
});
