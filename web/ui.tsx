import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { can, describeError } from "./api.js";

/** Runs `load` when `deps` change; the page shows progress, the error in words, or the data. */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ loading: boolean; error?: string; data?: T }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ loading: true, data: s.data }));
    load().then(
      (data) => live && setState({ loading: false, data }),
      (error) => live && setState({ loading: false, error: describeError(error) }),
    );
    return () => void (live = false);
  }, [...deps, tick]);
  return { ...state, reload: useCallback(() => setTick((t) => t + 1), []) };
}

/** Runs an action on demand with its own busy flag and error message. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await action();
    } catch (e) {
      setError(describeError(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clearError: () => setError(undefined) };
}

export function Loading({ what = "Loading" }: { what?: string }) {
  return <p class="loading" role="status"><span class="spinner" aria-hidden="true" />{what}…</p>;
}

export function ErrorNote({ message }: { message?: string }) {
  return message ? <p class="error" role="alert">{message}</p> : null;
}

/** Why the session may not do `need`, in words, or undefined when it may. */
export function lackText(need: [string, string]): string | undefined {
  return can(need[0], need[1]) ? undefined : `Your root key lacks ${need[0]}.*.${need[1]}`;
}

/**
 * The reason a form's controls are off, said once in words where the form is (a disabled button's title alone is not
 * seen by keyboard or touch users); nothing when the session may do `need`.
 */
export function NeedNote({ need, consequence }: { need: [string, string]; consequence: string }) {
  const lack = lackText(need);
  return lack ? <p class="hint" role="note">{lack}: {consequence}</p> : null;
}

/** A button that is disabled, with the reason, when the session's root key lacks `need`. */
export function Guarded(props: {
  need: [string, string];
  onClick?: () => void;
  type?: "button" | "submit";
  busy?: boolean;
  class?: string;
  children: ComponentChildren;
}) {
  const reason = lackText(props.need);
  const allowed = reason === undefined;
  return (
    <button type={props.type ?? "button"} class={props.class} disabled={!allowed || props.busy} title={reason} aria-busy={props.busy} onClick={props.onClick}>
      {props.children}
    </button>
  );
}

/** Asks once more before a destructive action, inline (no browser dialog). */
export function ConfirmButton(props: { need: [string, string]; label: string; confirm: string; onConfirm: () => void; busy?: boolean }) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  // Keyboard users land on the confirmation, not on the page's start.
  useEffect(() => void (asking && confirmRef.current?.focus()), [asking]);
  if (!asking) return <Guarded need={props.need} class="danger" busy={props.busy} onClick={() => setAsking(true)}>{props.label}</Guarded>;
  return (
    <span class="confirm">
      <button type="button" class="danger" ref={confirmRef} onClick={() => { setAsking(false); props.onConfirm(); }}>{props.confirm}</button>
      <button type="button" onClick={() => setAsking(false)}>Cancel</button>
    </span>
  );
}

/** A secret shown once, with a copy button; it lives only in this component's memory. */
export function OneTimeSecret({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      (document.getElementById("one-time-secret") as HTMLInputElement | null)?.select();
    }
  };
  return (
    <div class="secret" role="region" aria-label={label}>
      <p><strong>{label}</strong> — shown only now. Copy it and keep it safe; it cannot be shown again.</p>
      <div class="row">
        <input id="one-time-secret" readOnly value={value} aria-label={label} onFocus={(e) => (e.target as HTMLInputElement).select()} />
        <button type="button" onClick={copy}>{copied ? "Copied" : "Copy"}</button>
        <button type="button" onClick={onDone}>Done</button>
      </div>
    </div>
  );
}

/** First/next paging; `label` names it where a page has more than one list. */
/** First/next page buttons of a cursor-paged list: `pages` from useCursorPages, `pagination` from its last answer. */
export function Pager(props: { pages: CursorPages; pagination?: { cursor?: string; hasMore: boolean }; label?: string }) {
  const { pages, pagination } = props;
  return (
    <nav class="pager" aria-label={props.label ?? "Pages"}>
      <button type="button" disabled={pages.page === 0} onClick={pages.first}>First page</button>
      <span>Page {pages.page + 1}</span>
      <button type="button" disabled={!pagination?.hasMore} onClick={() => pages.next(pagination?.cursor)}>Next page</button>
    </nav>
  );
}

/**
 * A search box applied on submit (Enter or its Search button, gated by `need`); an empty box means no search. The
 * API takes 1-256 characters.
 */
export function SearchBox(props: { label: string; placeholder: string; need: [string, string]; onSearch: (text: string | undefined) => void }) {
  const [text, setText] = useState("");
  return (
    <form class="filters" role="search" aria-label={props.label} onSubmit={(e) => { e.preventDefault(); props.onSearch(text.trim() || undefined); }}>
      <label>Search <input type="search" value={text} maxLength={256} placeholder={props.placeholder} onInput={(e) => setText((e.target as HTMLInputElement).value)} /></label>
      <div class="submit"><Guarded type="submit" need={props.need}>Search</Guarded></div>
    </form>
  );
}

/** Cursor paging: the cursor of each page seen so far, so "first" and "next" need no server-side state. */
export type CursorPages = ReturnType<typeof useCursorPages>;

export function useCursorPages() {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const page = cursors.length - 1;
  return {
    page,
    cursor: cursors[page],
    next: (cursor: string | undefined) => cursor && setCursors([...cursors, cursor]),
    first: () => setCursors([undefined]),
  };
}

export function formatTime(ms: bigint | number | undefined): string {
  if (ms === undefined) return "—";
  return new Date(Number(ms)).toISOString().replace("T", " ").slice(0, 19) + " UTC";
}

/**
 * A key's last verification for lists and the key page: "never" when absent. The server's value trails the last
 * verification by up to a flush (about a second), so seconds are shown, not milliseconds.
 */
export function lastUsedText(ms: bigint | undefined): string {
  return ms === undefined ? "never" : formatTime(ms);
}

export function Page({ title, children, intro }: { title: string; intro?: ComponentChildren; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Keyward`;
    (document.querySelector("main h1") as HTMLElement | null)?.focus();
  }, [title]);
  return (
    <section>
      <h1 tabIndex={-1}>{title}</h1>
      {intro && <p class="intro">{intro}</p>}
      {children}
    </section>
  );
}
