/**
 * The one cache of what the backend holds, as the views show it: per query key, the data, why it
 * could not be read, and whether a read runs. Views that show the same thing share one entry (the
 * providers in the chat header and in Settings), a change anywhere refreshes it by key or key
 * prefix, and backend events can do the same (`refreshOn`). Framework-free; the hook that views
 * use is `useServerState` (components/useServerState.ts).
 */
import { errorMessage } from "./format";

/** One part of a query key: plain values, so a key can be compared and written down. */
export type KeyPart = string | number | boolean | null;

/**
 * What names one piece of server state, from the general to the particular: ["providers", 3,
 * "models"] is a provider's models, and the prefix ["providers"] names everything about providers
 * at once, so a change can refresh a whole family without knowing its members.
 */
export type QueryKey = readonly KeyPart[];

/**
 * Reads one piece of server state. The signal is aborted once the result can no longer be shown
 * (no view wants the key any more, or a newer read answered), so a loader can skip work such as
 * a debounced request.
 */
export type Loader<T> = (signal: AbortSignal) => Promise<T>;

/** A piece of server state: the key it is kept under and how to read it. */
export interface Query<T> {
  key: QueryKey;
  load: Loader<T>;
}

/** What the cache holds for a key at one moment. A new object after every change, never mutated. */
export interface Snapshot<T> {
  /** The last value read; undefined before one arrives. */
  data: T | undefined;
  /** Why the last read failed, as the user reads it; null once a read works. */
  error: string | null;
  /** Whether a read is under way. */
  loading: boolean;
}

/** Nothing read yet and nothing running. */
export const IDLE: Snapshot<never> = Object.freeze({ data: undefined, error: null, loading: false });

/** One key's state and its reads, numbered in the order they started. */
interface Entry {
  key: QueryKey;
  load: Loader<unknown>;
  snapshot: Snapshot<unknown>;
  listeners: Set<() => void>;
  /** The number of the last read started. */
  started: number;
  /** Reads up to this number may no longer change the snapshot: a later one answered. */
  settled: number;
  running: Map<number, AbortController>;
  /** Dropped from the cache: nothing it still runs may change anything. */
  dropped: boolean;
}

/** The text a key is stored under: two keys with equal parts are the same key. */
export function keyText(key: QueryKey): string {
  return JSON.stringify(key);
}

/** Whether `key` starts with every part of `prefix` (a key is its own prefix). */
export function keyStartsWith(key: QueryKey, prefix: QueryKey): boolean {
  return prefix.length <= key.length && prefix.every((part, i) => Object.is(part, key[i]));
}

/**
 * A cache of server state. An entry lives while some view subscribes to its key and goes with the
 * last one (its reads are aborted): a view that opens later reads afresh, as each view did on its
 * own before, and nothing stale outlives the views that showed it.
 */
export class ServerState {
  private readonly entries = new Map<string, Entry>();

  /** What the cache holds for `key`, or undefined when no view subscribes to it. */
  peek<T>(key: QueryKey): Snapshot<T> | undefined {
    return this.entries.get(keyText(key))?.snapshot as Snapshot<T> | undefined;
  }

  /**
   * Subscribes `listener` to the key's changes and makes sure a read of it runs: one already
   * running is joined (two views opening together read once), otherwise one starts, keeping the
   * data there is while it runs. The loader is the one later refreshes use. Returns the
   * unsubscribe function; the last one drops the entry.
   */
  subscribe<T>(query: Query<T>, listener: () => void): () => void {
    const text = keyText(query.key);
    let entry = this.entries.get(text);
    if (!entry) {
      entry = {
        key: query.key,
        load: query.load,
        snapshot: IDLE,
        listeners: new Set(),
        started: 0,
        settled: 0,
        running: new Map(),
        dropped: false,
      };
      this.entries.set(text, entry);
    }
    entry.load = query.load;
    entry.listeners.add(listener);
    if (entry.running.size === 0) void this.start(entry);
    const subscribed = entry;
    return () => {
      subscribed.listeners.delete(listener);
      if (subscribed.listeners.size > 0 || this.entries.get(text) !== subscribed) return;
      this.entries.delete(text);
      subscribed.dropped = true;
      for (const controller of subscribed.running.values()) controller.abort();
      subscribed.running.clear();
    };
  }

  /**
   * Reads the key again, even if a read runs (that one may have started before the change that
   * calls for this one). Resolves once the result is shown or dropped; never rejects. A key no
   * view subscribes to has nothing to refresh.
   */
  refresh(key: QueryKey): Promise<void> {
    const entry = this.entries.get(keyText(key));
    return entry ? this.start(entry) : Promise.resolve();
  }

  /**
   * Refreshes every key that starts with `prefix`: what a change to the backend (a save, a
   * removal, an event) calls, naming the family it touched. Resolves once all are shown or
   * dropped; never rejects.
   */
  invalidate(prefix: QueryKey): Promise<void> {
    const stale = [...this.entries.values()].filter((e) => keyStartsWith(e.key, prefix));
    return Promise.all(stale.map((e) => this.start(e))).then(() => undefined);
  }

  /**
   * Replaces the key's data without a read: what a save returned. It is newer than any read
   * already under way, which may have started before the save: those are dropped, so an older
   * answer never puts back what the save replaced.
   */
  set<T>(key: QueryKey, data: T): void {
    const entry = this.entries.get(keyText(key));
    if (!entry) return;
    entry.settled = entry.started;
    for (const controller of entry.running.values()) controller.abort();
    entry.running.clear();
    this.update(entry, { data, error: null, loading: false });
  }

  /** How many keys views subscribe to now (for tests and diagnostics). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Starts a read. A result never replaces a newer one: a read that answers after a later read
   * did is dropped, and the reads started before one that answers are aborted. An earlier read
   * that answers first is shown while a later one runs, so refreshes in quick succession (a badge
   * refreshed on every event) never starve the view.
   */
  private start(entry: Entry): Promise<void> {
    const id = ++entry.started;
    const controller = new AbortController();
    entry.running.set(id, controller);
    if (!entry.snapshot.loading) this.update(entry, { ...entry.snapshot, loading: true });
    let pending: Promise<unknown>;
    try {
      pending = entry.load(controller.signal);
    } catch (e) {
      pending = Promise.reject(e);
    }
    /** Whether this read may still be shown; if so, the reads started before it are dropped. */
    const fresh = (): boolean => {
      entry.running.delete(id);
      if (entry.dropped || id <= entry.settled) return false;
      entry.settled = id;
      for (const [other, c] of entry.running) {
        if (other < id) {
          c.abort();
          entry.running.delete(other);
        }
      }
      return true;
    };
    return pending.then(
      (data) => {
        if (fresh()) this.update(entry, { data, error: null, loading: entry.started > id });
      },
      (e: unknown) => {
        if (fresh()) this.update(entry, { data: entry.snapshot.data, error: errorMessage(e), loading: entry.started > id });
      },
    );
  }

  private update(entry: Entry, snapshot: Snapshot<unknown>): void {
    entry.snapshot = snapshot;
    for (const listener of [...entry.listeners]) listener();
  }
}

/** The app's one cache of server state. */
export const serverState = new ServerState();

/** Refreshes every key of the app's cache that starts with `prefix` (see `ServerState.invalidate`). */
export function invalidate(prefix: QueryKey): Promise<void> {
  return serverState.invalidate(prefix);
}

/** Subscribes to a backend event; resolves to the function that stops listening (Tauri's `listen`). */
export type Listen = (handler: () => void) => Promise<() => void>;

/**
 * Refreshes the keys under each of `prefixes` whenever the event that `listen` subscribes to
 * arrives (MCP servers connect and fail on their own). Returns the function that stops it, which
 * also works before the subscription has answered. A subscription that fails (no backend) only
 * means no refreshes.
 */
export function refreshOn(listen: Listen, prefixes: readonly QueryKey[], cache: ServerState = serverState): () => void {
  let stop: (() => void) | null = null;
  let stopped = false;
  let subscribed: Promise<() => void>;
  try {
    subscribed = Promise.resolve(listen(() => prefixes.forEach((p) => void cache.invalidate(p))));
  } catch (e) {
    subscribed = Promise.reject(e);
  }
  void subscribed.then(
    (unlisten) => {
      if (stopped) unlisten();
      else stop = unlisten;
    },
    () => {},
  );
  return () => {
    stopped = true;
    stop?.();
  };
}
