import { MongoClient } from "mongodb";
import { clientOptionsFor, redactUrl } from "./connection.js";

/**
 * Connects one client to `url` with Keyward's defaults (connection.ts). A process opens one and hands it to every
 * MongoDB store (documents, events, audit log): the driver's pool serves them all, and one pool per process keeps
 * the server's connection count at one pool per instance. Rejects with "cannot connect to MongoDB at <url without
 * credentials>: <driver reason>" when no server answers within the server-selection timeout (or authentication
 * fails); nothing stays open after a rejection.
 */
export async function connectMongo(url: string): Promise<MongoClient> {
  const client = new MongoClient(url, clientOptionsFor(url));
  try {
    return await client.connect();
  } catch (error) {
    await client.close().catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot connect to MongoDB at ${redactUrl(url)}: ${reason}`, { cause: error });
  }
}
