import { gunzipSync } from "node:zlib";
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { useKeyward } from "../support/use-keyward.js";

const h = useKeyward();

/** A raw GET (fetch would decompress and hide content-encoding). */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${h.keyward.baseUrl}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("dashboard assets", () => {
  it("the bundle is built in the server, served gzipped when accepted, and revalidated by etag", async () => {
    const plain = await get("/dashboard/assets/app.js");
    expect(plain.status).toBe(200);
    expect(plain.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString("utf8")).toContain("/dashboard/rpc");
    // Offline: nothing is loaded from another host.
    expect(plain.body.toString("utf8")).not.toMatch(/https?:\/\/(cdn|unpkg|esm\.sh|jsdelivr)/);

    const zipped = await get("/dashboard/assets/app.js", { "accept-encoding": "gzip, br" });
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 2);

    const again = await get("/dashboard/assets/app.js", { "if-none-match": String(plain.headers.etag) });
    expect([again.status, again.body.length]).toEqual([304, 0]);

    const css = await get("/dashboard/assets/app.css");
    expect([css.status, css.headers["content-type"]]).toEqual([200, "text/css; charset=utf-8"]);
  });

  it("unknown dashboard paths and methods answer 404 and 405 without building anything secret", async () => {
    expect((await get("/dashboard/assets/secrets.env")).status).toBe(404);
    expect((await get("/dashboard/nowhere")).status).toBe(404);
    const put = await fetch(`${h.keyward.baseUrl}/dashboard`, { method: "PUT" });
    expect(put.status).toBe(405);
  });
});
