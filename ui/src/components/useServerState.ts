/**
 * The views' side of the server-state cache (serverState.ts): a hook that shows one query's data,
 * error and loading, and one that refreshes keys on a backend event.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { IDLE, keyText, type Listen, type Query, type QueryKey, refreshOn, type ServerState, serverState, type Snapshot } from "../serverState";

/** What a view gets for a query: the data, why it could not be read, and whether a read runs. */
export interface Load<T> {
  /** The last value read; undefined before one arrives (and, unless kept, after the key changes). */
  data: T | undefined;
  /** Why the last read failed, as the user reads it; null once a read works. */
  error: string | null;
  /** Whether a read is under way. */
  loading: boolean;
  /** Reads the key again. Resolves once the result is shown or dropped; never rejects. */
  reload: () => Promise<void>;
  /** Replaces the data without a read: an optimistic update, or what a save returned. */
  setData: (data: T) => void;
}

export interface LoadOptions {
  /**
   * Keep showing the last data while a read for a new key runs (a search that should not blink
   * back to the list on every keystroke). Off by default, so data never belongs to another key.
   */
  keepOnChange?: boolean;
  /** The cache to use: the app's unless a test brings its own. */
  cache?: ServerState;
}

/** A key subscribed to but not read yet. */
const LOADING: Snapshot<never> = Object.freeze({ data: undefined, error: null, loading: true });

/**
 * Shows `query` from the cache: subscribes to its key while the view is there (the first view to
 * ask reads it, a second one joins the read), and re-renders on every change of it, whoever made
 * the change. A view that opens reads the key again, showing what the cache has meanwhile. A
 * `null` query means there is nothing to read (no chat chosen, an empty search): no data, no
 * error, not loading.
 */
export function useServerState<T>(query: Query<T> | null, options: LoadOptions = {}): Load<T> {
  const cache = options.cache ?? serverState;
  const text = query === null ? null : keyText(query.key);
  const latest = useRef(query);
  latest.current = query;
  const [, setChanges] = useState(0);
  const changed = useCallback(() => setChanges((n) => n + 1), []);
  /** The key this view is subscribed to, once its effect has run. */
  const subscribed = useRef<string | null>(null);

  useEffect(() => {
    const q = latest.current;
    if (q === null || text === null) return;
    // Reads use the view's newest loader while the view still shows this key (its closure may
    // hold newer inputs than the key names), the one it subscribed with otherwise.
    const load = (signal: AbortSignal) => {
      const now = latest.current;
      return (now !== null && keyText(now.key) === text ? now.load : q.load)(signal);
    };
    const off = cache.subscribe({ key: q.key, load }, changed);
    subscribed.current = text;
    changed();
    return () => {
      subscribed.current = null;
      off();
    };
  }, [text, cache]);

  const last = useRef<Snapshot<T>>(IDLE);
  let shown: Snapshot<T> = IDLE;
  if (query !== null) {
    const held = cache.peek<T>(query.key);
    // Until the view's own read starts, it is as good as started.
    shown = subscribed.current === text ? (held ?? LOADING) : held ? { ...held, loading: true } : LOADING;
    if (options.keepOnChange && shown.data === undefined) {
      const before = last.current;
      shown = { data: before.data, error: shown.error ?? (shown.loading ? before.error : null), loading: shown.loading };
    }
  }
  last.current = shown;

  const reload = useCallback((): Promise<void> => {
    const q = latest.current;
    return q === null ? Promise.resolve() : cache.refresh(q.key);
  }, [cache]);
  const setData = useCallback(
    (data: T) => {
      const q = latest.current;
      if (q !== null) cache.set(q.key, data);
    },
    [cache],
  );
  return { data: shown.data, error: shown.error, loading: shown.loading, reload, setData };
}

/**
 * Refreshes the keys under `prefixes` whenever the event `listen` subscribes to arrives, while
 * the view is there (MCP servers connect, fail and restart on their own).
 */
export function useRefreshOn(listen: Listen, prefixes: readonly QueryKey[], cache: ServerState = serverState): void {
  const latest = useRef(prefixes);
  latest.current = prefixes;
  const text = JSON.stringify(prefixes);
  useEffect(() => refreshOn(listen, latest.current, cache), [listen, text, cache]);
}
