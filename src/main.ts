import { randomBytes } from "node:crypto";
import { createApp } from "./app.js";
import { bootstrap } from "./bootstrap.js";
import { readConfig } from "./config.js";
import { systemClock } from "./domain/clock.js";
import { openDocumentStore } from "./open-stores.js";
import { closeRedis, createRedisConnection, pingRedis } from "./store/redis/connection.js";
import { listen } from "./transport/server.js";

/** Starts Keyward from environment variables; stops cleanly on SIGINT/SIGTERM. */
async function main() {
  const config = readConfig(process.env);
  const documents = await openDocumentStore(config);
  const redis = config.redisUrl ? await createRedisConnection({ url: config.redisUrl, name: "keyward" }) : undefined;
  await bootstrap({
    documents,
    clock: systemClock,
    randomBytes: (size) => new Uint8Array(randomBytes(size)),
    rootKey: config.rootKey,
    print: (line) => console.log(line),
  });
  const app = createApp({
    documents,
    encryptionKey: config.encryptionKey,
    docsUrl: config.docsUrl,
    ready: redis ? () => pingRedis(redis) : undefined,
  });
  const server = await listen(app.handler, { port: config.port, host: config.host });
  const backend = `${config.mongodbUrl ? "mongodb" : `embedded (${config.dataDir})`}${redis ? " + redis" : ""}`;
  console.log(`Keyward listening on http://${server.host}:${server.port} — storage: ${backend}`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close();
    if (redis) await closeRedis(redis);
    await documents.close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error) => {
  console.error(`Keyward failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
