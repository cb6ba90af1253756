import { randomBytes } from "node:crypto";
import { createApp } from "./app.js";
import { bootstrap } from "./bootstrap.js";
import { readConfig } from "./config.js";
import { systemClock } from "./domain/clock.js";
import { tuneHeapForServing } from "./heap-tuning.js";
import { createLogger } from "./observability/logger.js";
import { openStores } from "./open-stores.js";
import { listen } from "./transport/server.js";
import { createCertificateReloader, readTlsContext } from "./transport/tls-certificates.js";

/** Starts Keyward from environment variables; stops cleanly on SIGINT/SIGTERM. */
async function main() {
  const config = readConfig(process.env);
  // Before the stores open: a certificate that cannot work stops the start with its reason, changing nothing.
  const tls = config.tls && { context: readTlsContext(config.tls), requireClientCertificate: config.tls.clientCaFile !== undefined };
  const { logger, flush, close: closeLog } = createLogger({ level: config.logLevel });
  // Lines still pending when something ends the process without `stop` (a failed start) are written on the way out.
  process.once("exit", flush);
  const stores = await openStores(config);
  await bootstrap({
    documents: stores.documents,
    clock: systemClock,
    randomBytes: (size) => new Uint8Array(randomBytes(size)),
    rootKey: config.rootKey,
    // Deliberately not the logger: the first root key is shown once to the operator, and log lines are kept.
    print: (line) => console.log(line),
  });
  const app = createApp({
    ...stores,
    encryptionKey: config.encryptionKey,
    docsUrl: config.docsUrl,
    logger,
    logSampleRate: config.logSampleRate,
    metricsAccess: config.metrics,
    trustedProxies: config.trustedProxies,
    idempotencyWindowMs: config.idempotencyWindowMs,
    webhooks: config.webhooks,
  });
  tuneHeapForServing();
  const server = await listen(app, { port: config.port, host: config.host, limits: config.limits, tls });
  // New certificates on SIGHUP or when the files change; open connections keep the one they started with.
  const reloader = config.tls && createCertificateReloader({
    files: config.tls, served: tls?.context, apply: (context) => server.setSecureContext(context), logger,
  });
  if (reloader) process.on("SIGHUP", () => reloader.reload("SIGHUP"));
  let stopping = false;
  // Stop accepting, let requests already received finish (bounded), then flush and close the stores: the journal,
  // buffered verification events and the connections. A second signal does not cut this short.
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    reloader?.close();
    await server.close({ graceMs: config.shutdownGraceMs });
    // A queued import stops after its current slice; the rest resumes at the next start.
    await app.stop();
    await stores.close();
    logger.info("Keyward stopped");
    await closeLog();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // Only now: whoever waits for this line may signal at once, and a signal that came before the handlers would end
  // the process on the spot instead of through `stop`.
  const scheme = server.tls ? "https" : "http";
  logger.info({ storage: stores.describe, metrics: config.metrics.mode, tls: tls ? (tls.requireClientCertificate ? "mtls" : "on") : "off" },
    `Keyward listening on ${scheme}://${server.host}:${server.port} — storage: ${stores.describe}`);
}

main().catch((error) => {
  // Before the configuration is read there is no logger yet: a plain line on stderr, as before.
  console.error(`Keyward failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
