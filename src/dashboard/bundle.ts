import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { packageFile } from "../package-file.js";
import { FAVICON_SVG } from "./favicon.js";

/** One built asset, ready to send. */
export interface Asset {
  contentType: string;
  body: Uint8Array;
  /** The same bytes gzipped once at build time, for clients that accept it. */
  gzipped: Uint8Array;
  etag: string;
}

export interface DashboardBundle {
  "app.js": Asset;
  "app.css": Asset;
  "favicon.svg": Asset;
}

const ENTRY = packageFile("web/main.tsx");

/**
 * Builds the browser code (web/) with esbuild, in memory, the first time it is asked for, and keeps the result.
 * Built at run time rather than committed: `npm ci && npm start` serves it with no build step (esbuild is a
 * dependency), there is no bundle in git to drift or conflict, and a server that never serves the dashboard never
 * builds it. Everything is bundled (Preact, connect-web, the generated messages): no CDN, works offline.
 */
export function createBundleLoader(): () => Promise<DashboardBundle> {
  let building: Promise<DashboardBundle> | undefined;
  return () => {
    building ??= build().catch((error) => {
      building = undefined; // a failed build is retried on the next request
      throw error;
    });
    return building;
  };
}

async function build(): Promise<DashboardBundle> {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: { app: ENTRY },
    bundle: true,
    write: false,
    outdir: "/dashboard-out",
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    jsx: "automatic",
    jsxImportSource: "preact",
    logLevel: "silent",
  });
  const byExtension = new Map(result.outputFiles.map((file) => [file.path.slice(file.path.lastIndexOf(".")), file.contents]));
  const js = byExtension.get(".js");
  const css = byExtension.get(".css");
  if (!js || !css) throw new Error("the dashboard build produced no app.js or app.css");
  return {
    "app.js": asset("text/javascript; charset=utf-8", js),
    "app.css": asset("text/css; charset=utf-8", css),
    "favicon.svg": asset("image/svg+xml", new TextEncoder().encode(FAVICON_SVG)),
  };
}

function asset(contentType: string, body: Uint8Array): Asset {
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
  return { contentType, body, gzipped: gzipSync(body, { level: 9 }), etag };
}
