import type { ComponentChildren, RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import * as api from "../api";
import * as session from "../session";
import { chatTitle, relativeTime, snippetParts } from "../format";
import { t } from "../i18n";
import { pause, useAction, useDismiss } from "./hooks";
import { useServerState } from "./useServerState";
import { useChatWindow } from "./chatPages";
import { Icon } from "./icons";
import type { ChatId, ChatRow, Preset, SearchHit } from "../types";

/** How long typing must pause before a search runs. */
const SEARCH_DELAY_MS = 150;
/** What is left of the typing pause at `now` after a key typed at `typedAt` (ms). */
export function pauseLeft(typedAt: number, now: number): number {
  return Math.max(0, Math.min(SEARCH_DELAY_MS, SEARCH_DELAY_MS - (now - typedAt)));
}
/** User Timing marks around each search's call, which the speed script reads (F-50). */
export const SEARCH_ASKED = "tollgate:search-asked";
export const SEARCH_ANSWERED = "tollgate:search-answered";

interface Props {
  /** The chats read so far, newest first (a page at a time). */
  chats: ChatRow[];
  /** Whether older chats are left to read. */
  moreChats: boolean;
  /** Reads the next page of older chats (near the end of the list, or on its button). */
  onMoreChats: () => void;
  /** Why the chat list could not be read (shown instead of the list). */
  loadError: string | null;
  /** Failures of the sidebar's own actions and badges (a new chat, the waiting counts), shown above the list. */
  notices: string[];
  /** A passing word about what just happened (e.g. how many chats were imported). */
  status: string | null;
  current: ChatId | null;
  waiting: Record<string, number>;
  onSelect: (chat: ChatId) => void;
  onNew: () => void;
  /** The presets a chat can start from (the caret beside New chat lists them). */
  presets: Preset[];
  onNewFromPreset: (preset: number) => void;
  /** Import chats from an export file (F-62). */
  onImport: () => void;
  onRenamed: () => void;
  onDelete: (chat: ChatRow) => void;
  onSettings: () => void;
  settingsOpen: boolean;
  searchRef: { current: HTMLInputElement | null };
}

/** Starts a chat from a preset: a menu beside New chat. */
/** ▾ beside New chat: start a chat from an assistant (F-58), or import chats (F-62). */
function NewChatMenu({ presets, onPick, onImport }: { presets: Preset[]; onPick: (id: number) => void; onImport: () => void }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, () => setOpen(false), ref);
  return (
    <div class="popover-anchor" ref={ref}>
      <button
        type="button"
        class="btn btn--primary new-chat-more"
        aria-expanded={open}
        aria-haspopup="menu"
        aria-label={t("sidebar.moreNew")}
        title={t("sidebar.moreNew")}
        onClick={() => setOpen(!open)}
        data-role="new-from-preset"
      >
        ▾
      </button>
      {open ? (
        <div class="popover popover--menu" role="menu">
          {presets.length ? <div class="popover-title menu-title">{t("sidebar.newFromPreset")}</div> : null}
          {presets.map((p) => (
            <button
              key={p.id}
              type="button"
              role="menuitem"
              class="menu-item"
              onClick={() => {
                setOpen(false);
                onPick(p.id);
              }}
            >
              {p.name}
            </button>
          ))}
          {presets.length ? <div class="menu-separator" role="separator" /> : null}
          <button
            type="button"
            role="menuitem"
            class="menu-item"
            data-role="import-chats"
            onClick={() => {
              setOpen(false);
              onImport();
            }}
          >
            <Icon name="upload" /> {t("sidebar.import")}
          </button>
        </div>
      ) : null}
    </div>
  );
}

function BrandMark() {
  return (
    <svg class="brand-mark" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <rect width="24" height="24" rx="6" fill="#0f766e" />
      <rect x="5" y="6" width="14" height="2.5" rx="1" fill="#fff" />
      <rect x="8" y="10.5" width="8" height="1.75" fill="#fff" />
      <rect x="7" y="7" width="2.5" height="11" rx="0.75" fill="#fff" />
      <rect x="14.5" y="7" width="2.5" height="11" rx="0.75" fill="#fff" />
    </svg>
  );
}

export function Sidebar(props: Props) {
  const [query, setQuery] = useState("");
  // When the last key was typed: the pause is counted from it, not from the effect that starts
  // the search a frame later (which made a search wait 20–40 ms past the pause).
  const typedAt = useRef(0);
  const q = query.trim();
  // The last results stay while the next keystroke's search runs, so the list does not blink.
  const search = useServerState<SearchHit[]>(
    q
      ? {
          key: ["searchChats", q],
          load: async (signal) => {
            await pause(pauseLeft(typedAt.current, performance.now()), signal);
            performance.mark(SEARCH_ASKED);
            const hits = await api.searchChats(q);
            performance.mark(SEARCH_ANSWERED);
            return hits;
          },
        }
      : null,
    { keepOnChange: true },
  );
  const searching = q !== "" && (search.data !== undefined || search.error !== null);
  const listBox = useRef<HTMLElement>(null);

  return (
    <aside class="sidebar" aria-label={t("sidebar.chats")}>
      <div class="brand">
        <BrandMark />
        <span class="brand-name">{t("app.name")}</span>
      </div>
      <div class="new-chat-row">
        <button type="button" class="btn btn--primary new-chat" onClick={props.onNew} title="Ctrl+N">
          <Icon name="plus" /> {t("sidebar.newChat")}
        </button>
        <NewChatMenu presets={props.presets} onPick={props.onNewFromPreset} onImport={props.onImport} />
      </div>
      <div class="search">
        <input
          ref={props.searchRef}
          type="search"
          placeholder={`${t("sidebar.search")} (Ctrl+K)`}
          aria-label={t("sidebar.search")}
          value={query}
          onInput={(e) => {
            typedAt.current = performance.now();
            setQuery(e.currentTarget.value);
          }}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              setQuery("");
              (e.currentTarget as HTMLInputElement).blur();
            }
          }}
        />
      </div>
      {props.status ? (
        <p class="muted side-note" role="status" data-role="sidebar-status">
          {props.status}
        </p>
      ) : null}
      {props.notices.map((n) => (
        <p key={n} class="inline-error side-note" role="alert">
          {n}
        </p>
      ))}
      <nav
        ref={listBox}
        class="chat-list"
        onScroll={(e) => {
          // The next page is read before the end comes into view.
          const nav = e.currentTarget;
          if (!searching && props.moreChats && nav.scrollTop + nav.clientHeight > nav.scrollHeight - 600) props.onMoreChats();
        }}
      >
        {searching ? (
          <SearchResults hits={search.data ?? []} query={query} error={search.error} onSelect={props.onSelect} current={props.current} />
        ) : (
          <ChatList {...props} scroller={listBox} />
        )}
      </nav>
      <button type="button" class={`sidebar-settings${props.settingsOpen ? " is-active" : ""}`} onClick={props.onSettings}>
        <Icon name="gear" /> {t("sidebar.settings")}
      </button>
    </aside>
  );
}

function SearchResults({
  hits,
  query,
  error,
  onSelect,
  current,
}: {
  hits: SearchHit[];
  query: string;
  error: string | null;
  onSelect: (c: ChatId) => void;
  current: ChatId | null;
}) {
  if (error) return <p class="inline-error side-note">{error}</p>;
  if (hits.length === 0) return <p class="muted side-note">{t("sidebar.noResults", { query: query.trim() })}</p>;
  return (
    <ul>
      {hits.map((h) => (
        <li key={h.chat}>
          <button
            type="button"
            class={`chat-item${h.chat === current ? " is-active" : ""}`}
            onClick={() => {
              onSelect(h.chat);
              if (h.message !== null) void session.showMessage(h.chat, h.message);
            }}
          >
            <span class="chat-item-title">{chatTitle(h)}</span>
            {h.snippet ? (
              <span class="snippet">
                {snippetParts(h.snippet).map((p, i) => (p.match ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
              </span>
            ) : null}
          </button>
        </li>
      ))}
    </ul>
  );
}

function ChatList(props: Props & { scroller: RefObject<HTMLElement | null> }) {
  const list = useRef<HTMLUListElement>(null);
  // The row with the keyboard focus (kept rendered, with its buttons) and the row under the
  // pointer (with its buttons): the other rows leave out their rename and delete buttons.
  const [focused, setFocused] = useState<ChatId | null>(null);
  const [hovered, setHovered] = useState<ChatId | null>(null);
  const { chats } = props;
  const focusedAt = focused === null ? -1 : chats.findIndex((c) => c.id === focused);
  const { ranges, rowHeight } = useChatWindow(props.scroller, list, chats.length, focusedAt < 0 ? null : focusedAt);
  if (props.loadError) return <p class="inline-error side-note">{props.loadError}</p>;
  if (chats.length === 0) return <p class="muted side-note">{t("sidebar.noChats")}</p>;
  const rows: ComponentChildren[] = [];
  const gap = (key: string, count: number) => {
    if (count > 0) rows.push(<li key={key} class="chat-gap" role="none" aria-hidden="true" style={{ height: `${count * rowHeight}px` }} />);
  };
  let next = 0;
  for (const [start, end] of ranges) {
    gap(`gap-${start}`, start - next);
    for (let i = start; i < end; i++) {
      const chat = chats[i];
      if (!chat) continue;
      // The row before the focused one has its buttons too, so Shift+Tab reaches them.
      const actions = chat.id === hovered || i === focusedAt || i === focusedAt - 1;
      rows.push(<ChatItem key={chat.id} chat={chat} position={i + 1} count={chats.length} actions={actions} {...props} />);
    }
    next = end;
  }
  gap("gap-end", chats.length - next);
  const rowOf = (e: Event): ChatId | null => {
    const row = (e.target as HTMLElement | null)?.closest<HTMLElement>("[data-row]");
    return row ? Number(row.dataset["row"]) : null;
  };
  return (
    <>
      <ul
        ref={list}
        onFocusIn={(e) => setFocused(rowOf(e))}
        onFocusOut={(e) => {
          // Leaving the list, not moving within it.
          const to = e.relatedTarget as Node | null;
          if (!to || !list.current?.contains(to)) setFocused(null);
        }}
        onMouseOver={(e) => setHovered(rowOf(e))}
        onMouseLeave={() => setHovered(null)}
      >
        {rows}
      </ul>
      {props.moreChats ? (
        <button type="button" class="link-btn more-chats" data-role="more-chats" onClick={props.onMoreChats}>
          {t("sidebar.moreChats")}
        </button>
      ) : null}
    </>
  );
}

/**
 * A chat in the list, at `position` of `count` (1-based, for screen readers: the list renders a
 * window of its rows). `actions` renders its rename and delete buttons, which show on hover or
 * focus only: only the hovered and focused rows have them (F-71).
 */
function ChatItem({
  chat,
  position,
  count: rowCount,
  current,
  waiting,
  onSelect,
  onRenamed,
  onDelete,
  actions,
}: Props & { chat: ChatRow; position: number; count: number; actions: boolean }) {
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(chat.title);
  const { error, run } = useAction();
  const input = useRef<HTMLInputElement>(null);
  const count = waiting[String(chat.id)] ?? 0;

  useEffect(() => {
    if (editing) input.current?.select();
  }, [editing]);

  const commit = () => {
    const next = title.trim();
    setEditing(false);
    if (!next || next === chat.title) {
      setTitle(chat.title);
      return;
    }
    void run(() => api.renameChat(chat.id, next)).then((renamed) => {
      if (renamed) onRenamed();
      else setTitle(chat.title);
    });
  };

  if (editing) {
    return (
      <li data-row={chat.id} aria-posinset={position} aria-setsize={rowCount}>
        <input
          ref={input}
          class="rename-input"
          value={title}
          aria-label={t("sidebar.rename")}
          onInput={(e) => setTitle(e.currentTarget.value)}
          onBlur={commit}
          onKeyDown={(e) => {
            if (e.key === "Enter") commit();
            if (e.key === "Escape") {
              e.stopPropagation();
              setTitle(chat.title);
              setEditing(false);
            }
          }}
        />
      </li>
    );
  }
  return (
    <li class="chat-row" data-row={chat.id} aria-posinset={position} aria-setsize={rowCount}>
      <button
        type="button"
        class={`chat-item${chat.id === current ? " is-active" : ""}`}
        data-chat={chat.id}
        onClick={() => onSelect(chat.id)}
        onDblClick={() => setEditing(true)}
        title={error ?? chat.title}
      >
        <span class="chat-item-title">{chatTitle(chat)}</span>
        <span class="chat-item-time">{relativeTime(chat.updatedAt)}</span>
        {count > 0 ? (
          <span class="badge-count" title={t("sidebar.waiting", { count })} aria-label={t("sidebar.waiting", { count })}>
            {count}
          </span>
        ) : null}
      </button>
      {actions ? (
        <span class="chat-item-actions">
          <button type="button" class="icon-btn" title={t("sidebar.rename")} aria-label={t("sidebar.rename")} onClick={() => setEditing(true)}>
            <Icon name="pencil" />
          </button>
          <button type="button" class="icon-btn" title={t("sidebar.delete")} aria-label={t("sidebar.delete")} onClick={() => onDelete(chat)}>
            <Icon name="trash" />
          </button>
        </span>
      ) : null}
    </li>
  );
}
