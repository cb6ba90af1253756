/** Where an import stands; bytes of the file read drive the percentage, so no second pass counts the lines. */
export interface ImportTally {
  bytesRead: number;
  totalBytes: number;
  imported: number;
  failed: number;
  startedAt: number;
}

const count = (n: number) => n.toLocaleString("en-US");

function parts(t: ImportTally, now: number) {
  const fraction = t.totalBytes > 0 ? Math.min(1, t.bytesRead / t.totalBytes) : 1;
  const seconds = Math.max(0.001, (now - t.startedAt) / 1000);
  return { fraction, percent: Math.floor(fraction * 100), rate: Math.round((t.imported + t.failed) / seconds) };
}

/** `[########------]  57%  57,000 imported  570 failed  9,500 keys/s`: one frame of the terminal's bar. Pure. */
export function progressBar(t: ImportTally, now: number, width = 24): string {
  const { fraction, percent, rate } = parts(t, now);
  const filled = Math.round(fraction * width);
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${String(percent).padStart(3)}%  ` +
    `${count(t.imported)} imported  ${count(t.failed)} failed  ${count(rate)} keys/s`;
}

/** `import: 57% (57,000 imported, 570 failed, 9,500 keys/s)`: a progress line where there is no terminal. Pure. */
export function progressLine(t: ImportTally, now: number): string {
  const { percent, rate } = parts(t, now);
  return `import: ${percent}% (${count(t.imported)} imported, ${count(t.failed)} failed, ${count(rate)} keys/s)`;
}

/**
 * Reports progress to stderr: on a terminal a bar redrawn in place at most ten times a second; otherwise a plain line
 * at each further tenth of the file, and at least every 10 s while lines keep coming.
 */
export function createProgress(options: { tty: boolean; write: (text: string) => void; now: () => number }) {
  let lastDrawn = -Infinity;
  let lastTenth = 0;
  let lastLine = "";
  return {
    update(t: ImportTally): void {
      const now = options.now();
      if (options.tty) {
        if (now - lastDrawn < 100) return;
        lastDrawn = now;
        options.write(`\r${progressBar(t, now)}`);
        return;
      }
      const tenth = Math.floor(parts(t, now).fraction * 10);
      if (tenth > lastTenth || now - lastDrawn >= 10_000) {
        lastTenth = Math.max(lastTenth, tenth);
        lastDrawn = now;
        lastLine = progressLine(t, now);
        options.write(`${lastLine}\n`);
      }
    },
    /** The last frame (a terminal gets its line ended); no line repeated where the last one said it all. */
    finish(t: ImportTally): void {
      const now = options.now();
      if (options.tty) options.write(`\r${progressBar(t, now)}\n`);
      else if (!lastLine.startsWith(`import: 100% (${t.imported.toLocaleString("en-US")} imported, ${t.failed.toLocaleString("en-US")} failed`)) {
        options.write(`${progressLine(t, now)}\n`);
      }
    },
  };
}
