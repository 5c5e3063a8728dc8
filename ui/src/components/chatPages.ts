/** The sidebar's chats, read a page at a time (F-71). */
import type { RefObject } from "preact";
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import * as api from "../api";
import { errorMessage } from "../format";
import { afterNextPaint } from "../frames";
import { useScrollView } from "./hooks";
import type { ChatRow } from "../types";
import { rowRanges } from "../virtual";

/** Chats the sidebar reads at a time. */
export const CHAT_PAGE = 100;

/**
 * The height a sidebar row is taken to have until one is measured: no row is shorter (a row is
 * about 34 px at the smallest text size), so the first frame renders at least the rows in view.
 */
const ROW_FLOOR_PX = 28;

/**
 * Rows rendered past each edge of the sidebar's view once its first screen is painted: enough
 * that Tab and a wheel's step land on rendered rows before the window follows the scroll.
 */
export const OVERSCAN_ROWS = 10;

/**
 * The performance entry (User Timing) that measures the sidebar's first screen: from asking for
 * the first page to its chats on screen. The speed script reads it (F-71).
 */
export const FIRST_SCREEN_MEASURE = "tollgate:sidebar-first-screen";
/** Marks asking for the first page (or having it, when it came with the window): the first screen is measured from it. */
export const FIRST_PAGE_ASKED = "tollgate:chats-asked";
/** Marks the first page's answer arriving, so the speed script can split the first screen. */
export const FIRST_PAGE_ANSWERED = "tollgate:chats-answered";
let firstScreenMeasured = false;

/** Marks the first chats rendered into the page (before the frame that paints them). */
export const FIRST_SCREEN_RENDERED = "tollgate:chats-rendered";
let firstRowsMarked = false;

/** Marks the start of the frame that paints the first page (its scripts, style, layout, paint follow). */
export const FIRST_SCREEN_FRAME = "tollgate:chats-frame";

/** Where the sidebar's list measured itself last: a row's height, and the window's height not given to the list. */
export const LIST_METRICS_KEY = "tollgate.sidebarList";

/** A row's height and the window height around the list (px), as measured in the last window. */
export interface ListMetrics {
  rowPx: number;
  chromePx: number;
}

/**
 * The list's metrics from the last window, when they make sense for this one: the first frame
 * then renders the rows that fit the list (about 19 on a 860 px window) instead of those that
 * would fit the whole window at the smallest row height (31), each of which cost the year's
 * first screen about 0.6 ms (F-71). A row taller now than remembered leaves the last rows of
 * the view blank for that one frame, until the list measures itself.
 */
export function rememberedMetrics(raw: string | null, windowPx: number): ListMetrics | null {
  if (raw === null) return null;
  try {
    const m = JSON.parse(raw) as Partial<ListMetrics>;
    const { rowPx, chromePx } = m;
    if (typeof rowPx !== "number" || typeof chromePx !== "number") return null;
    if (!(rowPx >= ROW_FLOOR_PX && rowPx <= 200 && chromePx >= 0 && chromePx < windowPx)) return null;
    return { rowPx, chromePx };
  } catch {
    return null;
  }
}

function readMetrics(): ListMetrics | null {
  try {
    return rememberedMetrics(localStorage.getItem(LIST_METRICS_KEY), window.innerHeight);
  } catch {
    return null;
  }
}

function writeMetrics(m: ListMetrics): void {
  try {
    localStorage.setItem(LIST_METRICS_KEY, JSON.stringify(m));
  } catch {
    // Without storage the next first frame renders the rows for the whole window; nothing breaks.
  }
}

/** Which of the sidebar's rows to render, and at what height the rest are stood in for. */
export interface ChatWindow {
  /** The rows to render, as half-open `[start, end)` index ranges in order (`rowRanges`). */
  ranges: Array<[number, number]>;
  /** A row's height in px: measured from a rendered row, until then the floor. */
  rowHeight: number;
}

/**
 * The sidebar's chat list is windowed (F-71): it renders the rows in view of
 * `scroller`, `OVERSCAN_ROWS` on each side once the first screen is painted, and the row at
 * `keep` (the focused one); spacers stand in for the rest. Each row rendered cost the year's
 * first screen about 0.6 ms and the idle window about 60 kB, and a year's sidebar reads pages
 * of 100 and more as it scrolls. `list` is the list inside `scroller`.
 */
export function useChatWindow(
  scroller: RefObject<HTMLElement | null>,
  list: RefObject<HTMLElement | null>,
  total: number,
  keep: number | null,
): ChatWindow {
  const [remembered] = useState(readMetrics);
  const view = useScrollView(scroller, list, { top: 0, height: remembered ? window.innerHeight - remembered.chromePx : window.innerHeight });
  const [rowHeight, setRowHeight] = useState(remembered?.rowPx ?? ROW_FLOOR_PX);
  const [painted, setPainted] = useState(false);
  useLayoutEffect(() => {
    if (total === 0 || firstRowsMarked) return;
    firstRowsMarked = true;
    performance.mark(FIRST_SCREEN_RENDERED);
  }, [total]);
  useEffect(() => {
    if (painted || total === 0) return;
    return afterNextPaint(() => setPainted(true));
  }, [painted, total]);
  // A row's height (it follows the text size), read after the frame that painted it; kept with
  // the window height around the list for the next window's first frame.
  const kept = useRef(remembered);
  useEffect(() => {
    const row = list.current?.querySelector<HTMLElement>(".chat-row");
    const h = row?.offsetHeight ?? 0;
    if (h > 0 && h !== rowHeight) setRowHeight(h);
    const box = scroller.current?.clientHeight ?? 0;
    if (h <= 0 || box <= 0) return;
    const now = { rowPx: h, chromePx: window.innerHeight - box };
    if (kept.current?.rowPx !== now.rowPx || kept.current.chromePx !== now.chromePx) {
      kept.current = now;
      writeMetrics(now);
    }
  });
  return { ranges: rowRanges(total, rowHeight, view.top, view.height, painted ? OVERSCAN_ROWS : 0, keep), rowHeight };
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

/** How long after the first screen the chats handed with the page are read again. */
export const FIRST_PAGE_REFRESH_MS = 1000;

/** The global the app sets to the first page of chats before the page's scripts run (`first_page.rs`). */
export const FIRST_PAGE_GLOBAL = "__TOLLGATE_FIRST_CHATS__";

/**
 * The first page of chats the app handed the page with its window (F-71), taken once: a reload
 * of the page reads its chats afresh. Undefined when there is none (outside the app, or the
 * database could not be read when the window opened).
 */
export function takeFirstPage(): ChatRow[] | undefined {
  const holder = window as unknown as Record<string, unknown>;
  const rows = holder[FIRST_PAGE_GLOBAL];
  if (rows === undefined) return undefined;
  delete holder[FIRST_PAGE_GLOBAL];
  return Array.isArray(rows) ? (rows as ChatRow[]) : undefined;
}

export function useChatPages(): ChatPages {
  const [state, setState] = useState<{ data: ChatRow[] | undefined; error: string | null; more: boolean }>(() => {
    const first = takeFirstPage();
    if (first === undefined) return { data: undefined, error: null, more: false };
    if (!firstScreenMeasured) {
      // The first screen is measured from here, where the page has its chats, as it is from
      // asking for them when they come over IPC.
      firstScreenMeasured = true;
      const mark = performance.mark(FIRST_PAGE_ASKED).name;
      performance.mark(FIRST_PAGE_ANSWERED);
      measureFirstScreen(mark);
    }
    return { data: first, error: null, more: first.length === CHAT_PAGE };
  });
  const handed = useRef(state.data !== undefined);
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
    const mark = first ? performance.mark(FIRST_PAGE_ASKED).name : null;
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
    if (!handed.current) {
      void reload();
      return;
    }
    // Chats handed with the page are read again a moment after they are on screen, in case the
    // page was loaded again since the window opened (the app's script runs on every load).
    const timer = setTimeout(() => void reload(), FIRST_PAGE_REFRESH_MS);
    return () => clearTimeout(timer);
  }, [reload]);

  return { ...state, reload, loadMore, setData };
}
