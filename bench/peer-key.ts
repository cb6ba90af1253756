/** The one key the @grpc/grpc-js peer server knows; its bench target sends it. */
export const PEER_KEY = "bench_peerKey1234567890";
