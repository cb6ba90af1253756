import { execFile } from "node:child_process";
import { request, type Agent } from "node:https";
import { connect as tlsConnect, type TLSSocket } from "node:tls";
import { promisify } from "node:util";
import { recordSecretsIn } from "../../support/secret-record.js";

/** What one HTTPS request saw: status, JSON body, the Set-Cookie header and the certificate the connection got. */
export interface HttpsAnswer {
  status: number;
  body: any;
  setCookie: string[];
  fingerprint256: string;
}

/**
 * POST `path` as JSON over HTTPS (HTTP/1.1, node:https) trusting `ca`; `agent` to reuse keep-alive connections,
 * `cert`/`key` to present a client certificate.
 */
export function httpsPost(
  baseUrl: string,
  path: string,
  body: unknown,
  options: { ca: Buffer; rootKey?: string; agent?: Agent; cert?: Buffer; key?: Buffer; headers?: Record<string, string> },
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, {
      method: "POST",
      ca: options.ca,
      cert: options.cert,
      key: options.key,
      agent: options.agent,
      headers: {
        "content-type": "application/json",
        ...(options.rootKey ? { authorization: `Bearer ${options.rootKey}` } : {}),
        ...options.headers,
      },
    }, (res) => {
      const chunks: Buffer[] = [];
      const fingerprint256 = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: left as text
        }
        recordSecretsIn(parsed);
        resolve({ status: res.statusCode ?? 0, body: parsed, setCookie: res.headers["set-cookie"] ?? [], fingerprint256 });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

/** A new TLS connection offering `alpn`: the protocol the server chose (false: none) and the certificate it showed. */
export function handshake(port: number, options: { ca: Buffer; alpn?: string[] }): Promise<{ alpn: string | false; fingerprint256: string }> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: "127.0.0.1", port, ca: options.ca, servername: "localhost", ALPNProtocols: options.alpn }, () => {
      const seen = { alpn: socket.alpnProtocol ?? false, fingerprint256: socket.getPeerCertificate().fingerprint256 };
      socket.destroy();
      resolve(seen);
    });
    socket.on("error", reject);
  });
}

/** curl's exit code, the HTTP version and status it reports (`-w '%{http_version} %{http_code}'`), its body and stderr. */
export async function curl(args: string[]): Promise<{ code: number; written: string; body: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)("curl", ["-sS", "--max-time", "10", "-w", "\n%{http_version} %{http_code}", ...args], {
      encoding: "utf8",
    });
    const cut = stdout.lastIndexOf("\n");
    return { code: 0, body: stdout.slice(0, cut), written: stdout.slice(cut + 1), stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, body: "", written: failed.stdout.trim(), stderr: failed.stderr };
  }
}

/**
 * A `fetch` for clients that take one (the v2 SDK's HTTPClient): node:https underneath, trusting `ca`, so a real
 * SDK can talk to the test server without touching the process's trust store.
 */
export function httpsFetch(ca: Buffer): (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const req = input instanceof Request ? input : new Request(input, init);
    const body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined;
    return new Promise((resolve, reject) => {
      const outgoing = request(req.url, { method: req.method, ca, headers: Object.fromEntries(req.headers) }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            for (const one of [value ?? []].flat()) headers.append(name, String(one));
          }
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers }));
        });
        res.on("error", reject);
      });
      outgoing.on("error", reject);
      outgoing.end(body);
    });
  };
}
