import { createMemoryEventStore } from "../../src/store/memory-events.js";
import { runEventStoreContract } from "./events.contract.js";
import { runLastUseContract } from "./last-use.contract.js";

// The in-memory adapter keeps no history beyond maxEvents and has no clock-driven retention.
runEventStoreContract("memory", async (options) => createMemoryEventStore(options), { clockRetention: false });
runLastUseContract("memory", async (options) => createMemoryEventStore(options));
