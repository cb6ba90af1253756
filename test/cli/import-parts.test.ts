import { describe, expect, it } from "vitest";
import { keyIndexesNamed, keyLinesOf } from "../../src/cli/import/key-lines.js";
import { createProgress, progressBar, progressLine, type ImportTally } from "../../src/cli/import/progress.js";

async function* linesOf(...lines: string[]) {
  yield* lines;
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe("keyLinesOf", () => {
  it("gives each line's key or why it holds none, skips blank and comment lines, and counts every byte", async () => {
    const items = await all(keyLinesOf(linesOf('{"hash":"a"}', "", "  # line 3: why", "[1]", "{", "null", ' {"name":"é"} ')));
    expect(items).toEqual([
      { line: 1, text: '{"hash":"a"}', bytes: 13, key: { hash: "a" } },
      { skipped: 1 },
      { skipped: 16 },
      { line: 4, text: "[1]", bytes: 4, error: "not a JSON object" },
      { line: 5, text: "{", bytes: 2, error: expect.stringMatching(/^not valid JSON \(/) },
      { line: 6, text: "null", bytes: 5, error: "not a JSON object" },
      { line: 7, text: ' {"name":"é"} ', bytes: 16, key: { name: "é" } },
    ]);
  });
});

describe("keyIndexesNamed", () => {
  it("maps the keys a refusal names to their messages, joining several per key and ignoring other places", () => {
    const named = keyIndexesNamed([
      { location: "keys[3].hash", message: "must be 44 characters" },
      { location: "body.keys[12]", message: "repeats keys[2]" },
      { location: "keys[3].credits.remaining", message: "must be at least 0" },
      { location: "apiId", message: "required" },
      { location: "mykeys[4].x", message: "not a key" },
    ]);
    expect([...named]).toEqual([
      [3, "hash: must be 44 characters; credits.remaining: must be at least 0"],
      [12, "repeats keys[2]"],
    ]);
  });
});

describe("import progress", () => {
  const tally = (t: Partial<ImportTally>): ImportTally => ({ bytesRead: 0, totalBytes: 1000, imported: 0, failed: 0, startedAt: 0, ...t });

  it("draws the bar and the plain line from bytes read and keys per second", () => {
    const t = tally({ bytesRead: 575, imported: 57_000, failed: 570 });
    expect(progressBar(t, 6_000)).toBe("[##############----------]  57%  57,000 imported  570 failed  9,595 keys/s");
    expect(progressLine(t, 6_000)).toBe("import: 57% (57,000 imported, 570 failed, 9,595 keys/s)");
    expect(progressBar(tally({ totalBytes: 0 }), 1)).toMatch(/^\[#{24}\] 100%/);
  });

  it("redraws a terminal's bar at most ten times a second and ends its line", () => {
    const frames: string[] = [];
    let now = 0;
    const progress = createProgress({ tty: true, write: (text) => frames.push(text), now: () => now });
    for (now = 0; now < 1000; now += 10) progress.update(tally({ bytesRead: now, imported: now }));
    expect(frames).toHaveLength(10);
    expect(frames.every((f) => f.startsWith("\r["))).toBe(true);
    progress.finish(tally({ bytesRead: 1000, imported: 1000 }));
    expect(frames.at(-1)).toMatch(/^\r\[#{24}\] 100%  1,000 imported  0 failed  1,000 keys\/s\n$/);
  });

  it("writes a plain line at each further tenth (or every 10 s) elsewhere, and no last line that repeats the one before", () => {
    const lines: string[] = [];
    let now = 0;
    const progress = createProgress({ tty: false, write: (text) => lines.push(text), now: () => now });
    for (let read = 0; read <= 1000; read += 50) {
      now += 100;
      progress.update(tally({ bytesRead: read, imported: read }));
    }
    expect(lines.map((l) => l.split("%")[0])).toEqual(
      ["import: 0", "import: 10", "import: 20", "import: 30", "import: 40", "import: 50", "import: 60", "import: 70", "import: 80", "import: 90", "import: 100"],
    );
    progress.finish(tally({ bytesRead: 1000, imported: 1000 }));
    expect(lines).toHaveLength(11);
    now += 20_000;
    progress.update(tally({ bytesRead: 1000, imported: 1000 }));
    expect(lines).toHaveLength(12);
  });
});
