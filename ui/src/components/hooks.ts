import type { RefObject } from "preact";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { errorMessage } from "../format";
import { afterNextPaint } from "../frames";
import { chatStore } from "../store";
import type { ChatState } from "../timeline";
import type { ChatId } from "../types";

/** The store's state for one chat, re-rendering when it changes. */
export function useChatState(chat: ChatId): ChatState {
  const [state, setState] = useState(() => chatStore.get(chat));
  useEffect(() => {
    setState(chatStore.get(chat));
    return chatStore.subscribe(() => setState(chatStore.get(chat)));
  }, [chat]);
  return state;
}

/** Where a list's view is: the scroll position relative to the list's own top, and the view's height (px). */
export interface ScrollView {
  top: number;
  height: number;
}

/**
 * The view of `list` inside `scroller` (the windowed lists: a chat's messages, the tool-chain
 * log, the sidebar's chats), read at mount and then at most once a frame as the scroller
 * scrolls or changes size. A scroller without a height yet (hidden, or not laid out) counts as
 * the window's height.
 */
export function useScrollView(scroller: RefObject<HTMLElement | null>, list: RefObject<HTMLElement | null>, initial: ScrollView): ScrollView {
  const [view, setView] = useState(initial);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    let frame = 0;
    const update = () => {
      frame = 0;
      const l = list.current;
      const offset = l ? l.getBoundingClientRect().top - el.getBoundingClientRect().top + el.scrollTop : 0;
      const next = { top: el.scrollTop - offset, height: el.clientHeight || window.innerHeight };
      setView((v) => (v.top === next.top && v.height === next.height ? v : next));
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(update);
    };
    update();
    el.addEventListener("scroll", schedule, { passive: true });
    const resized = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(schedule);
    if (resized) resized.observe(el);
    else window.addEventListener("resize", schedule);
    return () => {
      el.removeEventListener("scroll", schedule);
      if (resized) resized.disconnect();
      else window.removeEventListener("resize", schedule);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [scroller, list]);
  return view;
}

/**
 * Whether a frame has been painted since `ready` first held: what the first screen does not need
 * waits for it, so that screen costs only what it shows (F-71). Once true, it stays true.
 */
export function usePaintedSince(ready: boolean): boolean {
  const [painted, setPainted] = useState(false);
  // A layout effect: the wait starts in the render that made `ready` true, so the frame waited
  // for is the one that shows it.
  useLayoutEffect(() => {
    if (!ready || painted) return;
    return afterNextPaint(() => setPainted(true));
  }, [ready, painted]);
  return painted;
}

/**
 * How many of a list's `total` items to render: `first` at once, then `batch` more after each
 * painted frame until all are in. A long list (a server's hundred tools in its review) opens on
 * its first screen at once and fills in below while the user reads, instead of holding the
 * window until every row is laid out.
 */
export function useProgressive(total: number, first: number, batch: number): number {
  const [extra, setExtra] = useState(0);
  const shown = Math.min(total, first + extra * batch);
  useEffect(() => {
    if (shown >= total) return;
    return afterNextPaint(() => setExtra((n) => n + 1));
  }, [shown, total]);
  return shown;
}

/** Closes a popover on outside click or Esc. */
export function useDismiss(open: boolean, close: () => void, ref: { current: HTMLElement | null }): void {
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) close();
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        close();
      }
    };
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey, true);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey, true);
    };
  }, [open]);
}

// ---------------------------------------------------------------- loading

/**
 * Fetches something for a view. The signal is aborted once the result can no longer be shown
 * (the inputs changed, a newer result arrived, the view went away), so a loader can skip work
 * such as a debounced request.
 */
export type Loader<T> = (signal: AbortSignal) => Promise<T>;

/** What `useLoad` gives a view: the data, why it could not be read, and whether a load runs. */
export interface Load<T> {
  /** The last value loaded; undefined before one arrives (and, unless kept, after the inputs change). */
  data: T | undefined;
  /** Why the last load failed, as the user reads it; null once a load works. */
  error: string | null;
  /** Whether a load is under way. */
  loading: boolean;
  /** Loads again with the same inputs. Resolves once the result is shown or dropped; never rejects. */
  reload: () => Promise<void>;
  /** Replaces the data without a load: an optimistic update, or what a save returned. */
  setData: (data: T) => void;
}

export interface LoadOptions {
  /**
   * Keep showing the last data while a load for new inputs runs (a search that should not blink
   * back to the list on every keystroke). Off by default, so data never belongs to other inputs.
   */
  keepOnChange?: boolean;
}

interface LoadState<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
}

/** The loads of one `useLoad`, numbered in the order they started. */
interface Loads {
  /** The number of the last load started. */
  started: number;
  /** Loads up to this number may no longer change the state: a later one answered, or the inputs changed. */
  settled: number;
  running: Map<number, AbortController>;
}

function dropAll(loads: Loads): void {
  for (const controller of loads.running.values()) controller.abort();
  loads.running.clear();
  loads.settled = loads.started;
}

/**
 * The one load/error/loading pattern: runs `load` on mount, whenever `deps` change, and on
 * `reload()`. A result never replaces a newer one: a load that answers after a later load did,
 * after the inputs changed or after the view went away is dropped, so a slow answer never
 * overwrites a fresh one. An earlier reload that answers first is shown while the later one
 * runs, so reloads in quick succession (a badge refreshed on every event) never starve the view.
 * A `null` loader means there is nothing to load (no chat chosen, an empty search): no data, no
 * error, not loading.
 */
export function useLoad<T>(load: Loader<T> | null, deps: readonly unknown[], options: LoadOptions = {}): Load<T> {
  const [state, setState] = useState<LoadState<T>>(() => ({ data: undefined, error: null, loading: load !== null }));
  const loadRef = useRef(load);
  loadRef.current = load;
  const keepRef = useRef(options.keepOnChange === true);
  keepRef.current = options.keepOnChange === true;
  const loads = useRef<Loads>({ started: 0, settled: 0, running: new Map() });

  const start = useCallback((inputsChanged: boolean): Promise<void> => {
    const all = loads.current;
    const loader = loadRef.current;
    if (inputsChanged || loader === null) dropAll(all);
    if (loader === null) {
      setState({ data: undefined, error: null, loading: false });
      return Promise.resolve();
    }
    const id = ++all.started;
    const controller = new AbortController();
    all.running.set(id, controller);
    const clear = inputsChanged && !keepRef.current;
    setState((s) => ({ data: clear ? undefined : s.data, error: clear ? null : s.error, loading: true }));
    let pending: Promise<T>;
    try {
      pending = loader(controller.signal);
    } catch (e) {
      pending = Promise.reject(e);
    }
    /** Whether this load may still be shown; if so, the loads started before it are dropped. */
    const fresh = (): boolean => {
      all.running.delete(id);
      if (id <= all.settled) return false;
      all.settled = id;
      for (const [other, c] of all.running) {
        if (other < id) {
          c.abort();
          all.running.delete(other);
        }
      }
      return true;
    };
    return pending.then(
      (data) => {
        if (fresh()) setState({ data, error: null, loading: all.started > id });
      },
      (e: unknown) => {
        if (fresh()) setState((s) => ({ data: s.data, error: errorMessage(e), loading: all.started > id }));
      },
    );
  }, []);

  useEffect(() => {
    void start(true);
    return () => dropAll(loads.current);
  }, deps);

  const reload = useCallback(() => start(false), [start]);
  const setData = useCallback((data: T) => setState((s) => ({ ...s, data })), []);
  return { ...state, reload, setData };
}

/** Waits `ms`; rejects at once when `signal` is aborted (a debounce that a newer input cancels). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

// ---------------------------------------------------------------- actions

/** What `useAction` gives a button or form: why its last run failed and whether one runs now. */
export interface Action {
  /** Why the last run failed (or a message set by hand); null after a run that worked. */
  error: string | null;
  busy: boolean;
  /**
   * Runs `action`, clearing the old error first. Resolves to whether it worked; a failure is
   * kept in `error` for the view to show, never rejected, so callers need no catch.
   */
  run: (action: () => Promise<unknown>) => Promise<boolean>;
  /** Sets or clears the error by hand (a form's own check before it calls anything). */
  setError: (error: string | null) => void;
}

/**
 * The error and busy state of a user action (a save, a rename, a revoke), so each failure is
 * shown next to the control that caused it. State changes after the view went away are skipped.
 */
export function useAction(): Action {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const run = useCallback(async (action: () => Promise<unknown>): Promise<boolean> => {
    setError(null);
    setBusy(true);
    try {
      await action();
      return true;
    } catch (e) {
      if (mounted.current) setError(errorMessage(e));
      return false;
    } finally {
      if (mounted.current) setBusy(false);
    }
  }, []);
  return { error, busy, run, setError };
}

/** Grows a textarea with its text, up to `max` pixels (then it scrolls). */
export function useAutoGrow(area: RefObject<HTMLTextAreaElement | null>, text: string, max: number): void {
  useLayoutEffect(() => {
    const el = area.current;
    if (!el) return;
    el.style.height = "auto";
    el.style.height = `${Math.min(el.scrollHeight, max)}px`;
  }, [area, text, max]);
}

/** How close to the bottom (px) still counts as "at the bottom" for following new content. */
const FOLLOW_SLACK = 80;

/**
 * Whether a scroller keeps to its bottom as content comes in. Read it when the content has
 * changed, not from a copy: it takes a move of the view into account that its scroll event has
 * not reported yet.
 */
export interface Stick {
  now(): boolean;
}

/**
 * Follows new content at the bottom of `scroller` while the user is there: each change of
 * `content` scrolls to the bottom unless the user has scrolled up. A new `key` (another chat)
 * starts following again. `stick` is what a `VirtualList` in the scroller reads.
 *
 * A scroll event comes a frame after the move it reports. A render in between (a page of a
 * long chat arriving as the user scrolls up) must not pull the view back down, so `stick`
 * compares the scroll position with the one last read and, if it moved, reads it again at once.
 */
export function useFollowBottom(scroller: RefObject<HTMLElement | null>, key: unknown, content: unknown): { stick: Stick; onScroll: () => void } {
  // Whether the view follows the bottom, and the scroll position that was read to say so.
  const follow = useRef<{ on: boolean; top: number | null }>({ on: true, top: null });
  const stick = useMemo(() => {
    const read = (el: HTMLElement) => {
      follow.current = { on: el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOW_SLACK, top: el.scrollTop };
    };
    return {
      now: () => {
        const el = scroller.current;
        const seen = follow.current.top;
        if (el && seen !== null && Math.abs(el.scrollTop - seen) >= 1) read(el);
        return follow.current.on;
      },
      read,
    };
  }, [scroller]);
  // Before the effect below, so that another chat's first content is followed at once.
  useLayoutEffect(() => {
    follow.current = { on: true, top: null };
  }, [key]);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && stick.now()) {
      el.scrollTop = el.scrollHeight;
      stick.read(el);
    }
  }, [content]);
  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (el) stick.read(el);
  }, [scroller, stick]);
  return { stick, onScroll };
}
