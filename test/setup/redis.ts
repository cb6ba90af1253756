/**
 * vitest globalSetup: one private redis-server for the whole run. Tests read its URL with `inject("redisUrl")`;
 * child processes (servers under test) inherit `REDIS_URL`. A REDIS_URL given from outside is used as is and
 * nothing is started or stopped.
 */
import type { TestProject } from "vitest/node";
import { startRedisServer } from "../../scripts/redis-server.mjs";
import "./provided-context.js";

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  const external = process.env.REDIS_URL;
  if (external) {
    project.provide("redisUrl", external);
    return;
  }
  const server = await startRedisServer();
  process.env.REDIS_URL = server.url;
  project.provide("redisUrl", server.url);
  return async () => {
    delete process.env.REDIS_URL;
    await server.stop();
  };
}
