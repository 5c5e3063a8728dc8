/** The sidebar's chats, read a page at a time (F-71). */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import * as api from "../api";
import { errorMessage } from "../format";
import { afterNextPaint } from "../frames";
import type { ChatRow } from "../types";

/** Chats the sidebar reads at a time. */
export const CHAT_PAGE = 100;

/**
 * A height no sidebar row is shorter than (a row is about 34 px at the smallest text size), so
 * a window's height divided by it is more rows than the window holds.
 */
const ROW_FLOOR_PX = 28;

/**
 * Chats the sidebar shows in its first frame: as many as a window `height` px tall can hold, at
 * least 10; the rest of the page follows once that frame is painted, so a page of chats costs
 * the first screen only what is seen. Each row laid out and painted cost that frame about 0.6 ms
 * on the year (issue 16).
 */
export function firstScreenRows(height: number): number {
  return Math.max(10, Math.ceil(height / ROW_FLOOR_PX));
}

/**
 * The performance entry (User Timing) that measures the sidebar's first screen: from asking for
 * the first page to its chats on screen. The speed script reads it (F-71).
 */
export const FIRST_SCREEN_MEASURE = "tollgate:sidebar-first-screen";
/** Marks the first page's answer arriving, so the speed script can split the first screen. */
export const FIRST_PAGE_ANSWERED = "tollgate:chats-answered";
let firstScreenMeasured = false;

/** Marks the first chats rendered into the page (before the frame that paints them). */
export const FIRST_SCREEN_RENDERED = "tollgate:chats-rendered";
let firstRowsMarked = false;

/** Marks the start of the frame that paints the first page (its scripts, style, layout, paint follow). */
export const FIRST_SCREEN_FRAME = "tollgate:chats-frame";

/**
 * How many of `total` rows to render now, and whether the first screen has been painted: at most
 * [`firstScreenRows`] until a frame showing them has been painted, then all of them.
 */
export function useFirstScreen(total: number): { shown: number; painted: boolean } {
  const [all, setAll] = useState(false);
  useLayoutEffect(() => {
    if (total === 0 || firstRowsMarked) return;
    firstRowsMarked = true;
    performance.mark(FIRST_SCREEN_RENDERED);
  }, [total]);
  useEffect(() => {
    if (all || total === 0) return;
    return afterNextPaint(() => setAll(true));
  }, [all, total]);
  return { shown: all ? total : Math.min(total, firstScreenRows(window.innerHeight)), painted: all };
}

/** Measures from `mark` to the end of the next paint (the frame that shows what was just set). */
function measureFirstScreen(mark: string): void {
  requestAnimationFrame(() => performance.mark(FIRST_SCREEN_FRAME));
  afterNextPaint(() => {
    try {
      performance.measure(FIRST_SCREEN_MEASURE, mark);
    } catch {
      // A page without User Timing measures nothing; the sidebar works the same.
    }
  });
}

/** The sidebar's chats, read a page at a time (F-71): a year of chats costs its first screen. */
export interface ChatPages {
  /** The chats read so far, newest first; undefined until the first page arrives. */
  data: ChatRow[] | undefined;
  error: string | null;
  /** Whether older chats are left to read. */
  more: boolean;
  /** Reads the chats again from the top, as many as are shown now (at least a page). */
  reload: () => Promise<void>;
  /** Reads the next page of older chats; nothing while one is read or none are left. */
  loadMore: () => Promise<void>;
  /** Shows `rows` at once (a new chat); the next reload puts them in their place. */
  setData: (rows: ChatRow[]) => void;
}

export function useChatPages(): ChatPages {
  const [state, setState] = useState<{ data: ChatRow[] | undefined; error: string | null; more: boolean }>({
    data: undefined,
    error: null,
    more: false,
  });
  const rows = useRef<ChatRow[]>([]);
  rows.current = state.data ?? [];
  const more = useRef(false);
  more.current = state.more;
  // Every read takes a number; a page read before the latest reload is dropped, since the
  // reload's rows already stand for it.
  const reads = useRef({ latestReload: 0, started: 0, loadingMore: false });

  const reload = useCallback(async () => {
    const id = ++reads.current.started;
    reads.current.latestReload = id;
    const want = Math.max(CHAT_PAGE, rows.current.length);
    const first = !firstScreenMeasured;
    firstScreenMeasured = true;
    const mark = first ? performance.mark("tollgate:chats-asked").name : null;
    try {
      const page = await api.listChats(null, want);
      if (mark) performance.mark(FIRST_PAGE_ANSWERED);
      if (id !== reads.current.latestReload) return;
      setState({ data: page, error: null, more: page.length === want });
      if (mark) measureFirstScreen(mark);
    } catch (e) {
      if (id !== reads.current.latestReload) return;
      setState((s) => ({ ...s, error: errorMessage(e) }));
    }
  }, []);

  const loadMore = useCallback(async () => {
    const last = rows.current[rows.current.length - 1];
    if (!last || !more.current || reads.current.loadingMore) return;
    reads.current.loadingMore = true;
    const since = reads.current.latestReload;
    try {
      const page = await api.listChats({ updatedAt: last.updatedAt, id: last.id }, CHAT_PAGE);
      if (since !== reads.current.latestReload) return;
      const known = new Set(rows.current.map((c) => c.id));
      setState({ data: [...rows.current, ...page.filter((c) => !known.has(c.id))], error: null, more: page.length === CHAT_PAGE });
    } catch (e) {
      setState((s) => ({ ...s, error: errorMessage(e) }));
    } finally {
      reads.current.loadingMore = false;
    }
  }, []);

  const setData = useCallback((data: ChatRow[]) => setState((s) => ({ ...s, data })), []);

  useEffect(() => {
    void reload();
  }, [reload]);

  return { ...state, reload, loadMore, setData };
}
