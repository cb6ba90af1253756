/** The one key the hand-rolled peer servers know; their bench targets send it. */
export const PEER_KEY = "bench_peerKey1234567890";

/** The limit every peer applies to PEER_KEY: far from running out, so each call does the full work. */
export const PEER_LIMIT = { points: 1_000_000_000, durationMs: 60_000 };

/** Credits PEER_KEY starts with in the peers that keep a balance. */
export const PEER_CREDITS = 1_000_000_000;
