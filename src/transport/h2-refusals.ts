import { constants, type Http2Session, type ServerHttp2Stream } from "node:http2";

/** Streams refused in a row, nothing accepted after them, past which a session counts as no longer serving. */
const REFUSED_IN_A_ROW = 4;

const LAST_ACCEPTED = Symbol("keyward.lastAcceptedStream");
type WatchedSession = Http2Session & { [LAST_ACCEPTED]?: number };

/** Records a stream its session accepted (handed to the application): the count of refusals starts again after it. */
export function noteAccepted(stream: ServerHttp2Stream): void {
  const session = stream.session as WatchedSession | undefined;
  if (session) session[LAST_ACCEPTED] = stream.id;
}

/**
 * Node's HTTP/2 server refuses new streams by itself, with RST_STREAM(ENHANCE_YOUR_CALM) and no event, while a session
 * is over its memory cap (maxSessionMemory, 10 MiB: mostly answers queued for a client that does not read them).
 * Its own guard, maxSessionRejectedStreams, counts only refusals made before a stream exists, and the cap mostly
 * refuses after, at the first header (measured on Node 20): such a session refuses every new stream for good and
 * the client never learns to reconnect. Every `periodMs` this compares each session's last stream processed
 * (nghttp2's count, refused ones included) with the last one accepted; at REFUSED_IN_A_ROW refused since, the
 * session gets GOAWAY(ENHANCE_YOUR_CALM) naming the last accepted stream and closes: its accepted streams may
 * finish within `graceMs`, then it is dropped. Returns the function that stops the watch.
 */
export function watchRefusals(sessions: Iterable<Http2Session>, options: { periodMs: number; graceMs: number }): () => void {
  const timer = setInterval(() => {
    for (const session of sessions) goAwayIfRefusing(session, options.graceMs);
  }, options.periodMs);
  timer.unref();
  return () => clearInterval(timer);
}

function goAwayIfRefusing(session: WatchedSession, graceMs: number): void {
  if (session.closed || session.destroyed) return;
  const lastAccepted = session[LAST_ACCEPTED] ?? 0;
  // Client streams have odd ids, two apart. (A runtime without the session's state reads as nothing refused.)
  const lastProcessed = session.state?.lastProcStreamID ?? 0;
  if (lastProcessed - lastAccepted < 2 * REFUSED_IN_A_ROW) return;
  session.goaway(constants.NGHTTP2_ENHANCE_YOUR_CALM, lastAccepted);
  session.close();
  setTimeout(dropSession, graceMs, session).unref();
}

function dropSession(session: Http2Session): void {
  session.destroy();
}
