/**
 * Which MongoDB the Mongo suites use (set up by test/setup/mongo.ts): `mongo.url` (a real server from MONGODB_URL, or
 * the standalone emulator), `mongo.replicaSetUrl` (the emulator posing as a replica set; undefined on a real server,
 * whose URL already says what it is), `mongo.emulator`, and `mongo.skip`: the reason the suites cannot run, else "".
 */
export const mongo = {
  url: process.env.KEYWARD_TEST_MONGODB_URL ?? process.env.MONGODB_URL,
  replicaSetUrl: process.env.KEYWARD_TEST_MONGODB_RS_URL,
  emulator: process.env.KEYWARD_TEST_MONGO_EMULATOR === "1",
  skip: process.env.KEYWARD_TEST_MONGODB_URL ?? process.env.MONGODB_URL
    ? ""
    : ` [skipped: ${process.env.KEYWARD_TEST_MONGODB_SKIP ?? "MONGODB_URL is unset and no emulator was started"}]`,
};

/** Where the emulator differs from MongoDB: the reason a test skips on it (see shared/mongo-emulator/run.sh). */
export const emulatorGap = {
  rollback: "the mongo emulator does not roll back aborted transactions",
  ttl: "the mongo emulator has no TTL monitor",
  writeConcern: "the mongo emulator has no write concern or journal",
};

/** `url` with its database path replaced by `db` (query kept), for one fresh database per server or suite. */
export function withDatabase(url: string, db: string): string {
  const match = /^(mongodb(?:\+srv)?:\/\/[^/?]*)(?:\/[^?]*)?(\?.*)?$/i.exec(url);
  if (!match) throw new Error("not a MongoDB connection string");
  return `${match[1]}/${db}${match[2] ?? ""}`;
}
