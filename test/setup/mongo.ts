/**
 * vitest globalSetup: the MongoDB the Mongo suites run against. A MONGODB_URL given from outside (a real server) is
 * used as is. Otherwise the wire emulator (scripts/mongo-emulator.mjs) is started twice on free ports: standalone,
 * and posing as a one-member replica set so the transactional paths run too. Tests read the URLs from the
 * environment (workers inherit it; Deno workers too): KEYWARD_TEST_MONGODB_URL, KEYWARD_TEST_MONGODB_RS_URL, and
 * KEYWARD_TEST_MONGO_EMULATOR=1 when it is the emulator (tests skip, with the reason, what it cannot show).
 * KEYWARD_TEST_MONGODB_SKIP holds the reason when there is no MongoDB at all.
 */
import { startMongoEmulator } from "../../scripts/mongo-emulator.mjs";

const VARIABLES = ["KEYWARD_TEST_MONGODB_URL", "KEYWARD_TEST_MONGODB_RS_URL", "KEYWARD_TEST_MONGO_EMULATOR", "KEYWARD_TEST_MONGODB_SKIP"];

export default async function setup(): Promise<(() => Promise<void>) | void> {
  const external = process.env.MONGODB_URL;
  if (external) {
    process.env.KEYWARD_TEST_MONGODB_URL = external;
    return;
  }
  let standalone: Awaited<ReturnType<typeof startMongoEmulator>> | undefined;
  let replicaSet: Awaited<ReturnType<typeof startMongoEmulator>> | undefined;
  try {
    // One after the other: the first start may build the emulator, and two builds would collide.
    standalone = await startMongoEmulator();
    replicaSet = await startMongoEmulator({ replicaSet: "rs0" });
  } catch (error) {
    await standalone?.stop();
    if (process.env.CI || process.env.KEYWARD_REQUIRE_MONGO) throw error;
    process.env.KEYWARD_TEST_MONGODB_SKIP = `no MongoDB: MONGODB_URL is unset and the emulator did not start (${(error as Error).message.split("\n")[0]})`;
    return async () => cleanUp();
  }
  process.env.KEYWARD_TEST_MONGODB_URL = standalone.url;
  process.env.KEYWARD_TEST_MONGODB_RS_URL = replicaSet.url;
  process.env.KEYWARD_TEST_MONGO_EMULATOR = "1";
  return async () => {
    cleanUp();
    await Promise.all([standalone?.stop(), replicaSet?.stop()]);
  };
}

function cleanUp() {
  for (const name of VARIABLES) delete process.env[name];
}
