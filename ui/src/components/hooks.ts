import type { RefObject } from "preact";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { errorMessage } from "../format";
import type { Loader } from "../serverState";
import { afterNextPaint } from "../frames";
import { chatStore } from "../store";
import type { ChatState } from "../timeline";
import type { ChatId } from "../types";
import { type Load, type LoadOptions, useServerState } from "./useServerState";

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

export type { Loader } from "../serverState";
export type { Load, LoadOptions } from "./useServerState";

/** Numbers that make each `useLoad` view's keys its own (see `useLoad`). */
let loadViews = 0;
let loadInputs = 0;

/**
 * Loads something only this view shows, with no key of its own to share: runs `load` on mount,
 * whenever `deps` change, and on `reload()`, with the cache's rules (a result never replaces a
 * newer one; a slow answer after the inputs changed or the view went away is dropped; quick
 * reloads never starve the view). A thin wrapper over `useServerState`, so there is one
 * mechanism: the view gets a key nobody else uses, with a new last part whenever `deps` change.
 * A `null` loader means there is nothing to load (no chat chosen, an empty search): no data, no
 * error, not loading. What several views show, or what a change elsewhere must refresh, belongs
 * under a shared key instead (queries.ts).
 */
export function useLoad<T>(load: Loader<T> | null, deps: readonly unknown[], options: LoadOptions = {}): Load<T> {
  const [view] = useState(() => ++loadViews);
  const inputs = useMemo(() => ++loadInputs, deps);
  return useServerState(load === null ? null : { key: ["useLoad", view, inputs], load }, options);
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
