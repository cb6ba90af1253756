import type { Config } from "./config.js";
import type { DocumentStore } from "./store/ports.js";

/** Opens the document store the configuration names: MongoDB when MONGODB_URL is set, else the embedded store. */
export async function openDocumentStore(config: Pick<Config, "mongodbUrl" | "dataDir">): Promise<DocumentStore> {
  if (config.mongodbUrl) {
    const { createMongoDocumentStore } = await import("./store/mongo/documents.js");
    return createMongoDocumentStore({ url: config.mongodbUrl });
  }
  const { createEmbeddedDocumentStore } = await import("./store/embedded/documents.js");
  return createEmbeddedDocumentStore({ dir: config.dataDir });
}
