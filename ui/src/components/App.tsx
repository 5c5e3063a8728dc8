import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import * as api from "../api";
import { chatTitle } from "../format";
import { setLanguage, t } from "../i18n";
import * as session from "../session";
import { chatStore } from "../store";
import type { ChatId, ChatRow, SettingsView, Theme } from "../types";
import { ChatView } from "./ChatView";
import { useChatPages } from "./chatPages";
import { useAction, usePaintedSince } from "./hooks";
import { Icon } from "./icons";
import { type SettingsTab, SettingsScreen } from "./settings/Settings";
import { Sidebar } from "./Sidebar";
import { ToolLog } from "./ToolLog";
import { leaveDraft } from "../drafts";
import { presetsQuery, providersQuery, WAITING, waitingQuery } from "../queries";
import { invalidate, type Query } from "../serverState";
import { useServerState } from "./useServerState";

const darkQuery = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null;
let followSystem: (() => void) | null = null;

/**
 * Sets `data-theme` to "light" or "dark" (the stylesheet keeps one palette per value); "system"
 * follows the OS setting, live.
 */
export function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  if (darkQuery && followSystem) darkQuery.removeEventListener("change", followSystem);
  followSystem = null;
  if (theme === "system") {
    const set = (): void => {
      root.dataset["theme"] = darkQuery?.matches ? "dark" : "light";
    };
    set();
    if (darkQuery) {
      followSystem = set;
      darkQuery.addEventListener("change", set);
    }
  } else {
    root.dataset["theme"] = theme;
  }
}

function stored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}
function store(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* private mode */
  }
}

/**
 * The chat that was open when the page last unloaded in this run of the app (session storage
 * lasts as long as the window): a page loaded again — after its web process was ended for a
 * stuck view, say — opens where the user was.
 */
const OPEN_CHAT_KEY = "tollgate.openChat";
function reopenedChat(): ChatId | null {
  try {
    const id = Number(sessionStorage.getItem(OPEN_CHAT_KEY));
    return Number.isSafeInteger(id) && id > 0 ? id : null;
  } catch {
    return null;
  }
}
function rememberOpenChat(id: ChatId | null): void {
  try {
    if (id === null) sessionStorage.removeItem(OPEN_CHAT_KEY);
    else sessionStorage.setItem(OPEN_CHAT_KEY, String(id));
  } catch {
    /* no session storage: a reload opens no chat */
  }
}

interface Confirm {
  message: string;
  action: () => Promise<void>;
}

/** Puts the saved look and language into effect (before the view that shows them renders). */
function applyLook(s: SettingsView): void {
  applyTheme(s.app.theme);
  setLanguage(s.app.language);
}

/** Reads the sidebar's badges again: after anything that may have changed what waits. */
function reloadWaiting(): Promise<void> {
  return invalidate(WAITING);
}

/** The app's settings, put into effect as they arrive, before the render that shows them. */
const settingsQuery: Query<SettingsView> = {
  key: ["settings"],
  load: async () => {
    const s = await api.getSettings();
    applyLook(s);
    return s;
  },
};

/**
 * The chat to show: the one picked, from the pages read or read on its own (an older chat opened
 * from a search or a notification); the newest when none was picked or the picked one went away.
 */
export function shownChat(rows: ChatRow[], current: ChatId | null, single: SingleChat, shown: ChatRow | null): ChatRow | null {
  const listed = rows.find((c) => c.id === current);
  if (listed) return listed;
  if (current !== null) {
    // Not read yet, or being read (a moment): the chat on screen stays rather than another one
    // flashing by.
    if (single.id !== current || single.row === undefined) return shown;
    if (single.row !== null) return single.row;
  }
  return rows[0] ?? null;
}

/** A chat read on its own: undefined while it is read, null once it turned out deleted. */
interface SingleChat {
  id: ChatId | null;
  row: ChatRow | null | undefined;
}

export function App() {
  const chatsLoad = useChatPages();
  const chats = chatsLoad.data ?? [];
  const reloadChats = chatsLoad.reload;
  /** The chat the user picked; `currentChat` falls back to the first one while it is not in the list. */
  const [current, setCurrent] = useState<ChatId | null>(reopenedChat);
  const [view, setView] = useState<"chat" | "settings">("chat");
  const [tab, setTab] = useState<SettingsTab>("providers");
  // The look and language are applied as the settings arrive, before the render that shows them.
  const settings = useServerState(settingsQuery);
  const providers = useServerState(providersQuery);
  const waiting = useServerState(waitingQuery);
  const presets = useServerState(presetsQuery);
  const creating = useAction();
  const importing = useAction();
  const [imported, setImported] = useState<number | null>(null);
  const [inviteDismissed, setInviteDismissed] = useState(stored("tollgate.inviteDismissed") === "1");
  const [showLog, setShowLog] = useState(stored("tollgate.showLog") === "1");
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const confirming = useAction();
  const searchRef = useRef<HTMLInputElement>(null);
  const [single, setSingle] = useState<SingleChat>({ id: null, row: null });
  const pages = chatsLoad.data;
  // The open chat (its header, composer and messages) waits until the sidebar's first chats are
  // on screen: the two would otherwise be laid out and painted in one long first frame.
  const chatPaneReady = usePaintedSince(pages !== undefined);
  // The picked chat when no page read holds it; read again whenever the pages are.
  useEffect(() => {
    if (current === null || (pages ?? []).some((c) => c.id === current)) return;
    let live = true;
    setSingle((s) => (s.id === current ? s : { id: current, row: undefined }));
    api.getChat(current).then(
      (row) => live && setSingle({ id: current, row }),
      () => live && setSingle({ id: current, row: null }),
    );
    return () => {
      live = false;
    };
  }, [current, pages]);
  const shownRef = useRef<ChatRow | null>(null);
  const currentChat = shownChat(chats, current, single, shownRef.current);
  shownRef.current = currentChat;
  const currentId = currentChat?.id ?? null;
  const currentRef = useRef<ChatId | null>(null);
  currentRef.current = currentId;
  useEffect(() => rememberOpenChat(currentId), [currentId]);
  const chatsRef = useRef<ChatRow[]>([]);
  chatsRef.current = chats;

  const applySettings = useCallback(
    (s: SettingsView) => {
      applyLook(s);
      settings.setData(s);
    },
    [settings.setData],
  );

  useEffect(() => {
    session.setTurnEndListener(() => {
      void reloadChats();
      void reloadWaiting();
    });
    // A first message names its chat as the turn starts: show the name at once.
    session.setTurnStartListener(() => void reloadChats());

    // Background chats: refresh badges, and the open chat if its turn is not ours.
    let reloadTimer: ReturnType<typeof setTimeout> | undefined;
    const unlisten = api.onGateEvent((event) => {
      void reloadWaiting();
      const chat = "chat" in event ? event.chat : event.type === "approvalRequested" ? event.approval.chat : event.elicitation.chat;
      if (chat === currentRef.current && !session.isLive(chat)) {
        clearTimeout(reloadTimer);
        // A failed refresh shows in that chat, above its composer.
        reloadTimer = setTimeout(() => void session.refresh(chat), 150);
      }
    });

    // Approvals appearing or going away in live chats change the badges.
    let signature = "";
    let waitTimer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = chatStore.subscribe(() => {
      const ids = chatsRef.current.map((c) => c.id);
      const sig = [...ids, currentRef.current ?? -1]
        .map((id) => `${id}:${chatStore.get(id).approvals.length + chatStore.get(id).questions.length}`)
        .join(",");
      if (sig === signature) return;
      signature = sig;
      clearTimeout(waitTimer);
      waitTimer = setTimeout(() => void reloadWaiting(), 200);
    });
    // A clicked notification (an approval or a question waiting, F-59) opens its chat.
    const unlistenOpen = api.onOpenChat((chat) => {
      setCurrent(chat);
      setView("chat");
    });
    return () => {
      unsubscribe();
      void unlisten.then((f) => f());
      void unlistenOpen.then((f) => f());
    };
  }, []);

  /** Imports chats from a file the user picks; the newest opens. */
  const importChats = (): void =>
    void importing.run(async () => {
      setImported(null);
      const rows = await api.importChats();
      if (!rows.length) return;
      await reloadChats();
      setCurrent(rows[0]?.id ?? null);
      setView("chat");
      setImported(rows.length);
    });
  useEffect(() => {
    if (imported === null) return;
    const timer = setTimeout(() => setImported(null), 6000);
    return () => clearTimeout(timer);
  }, [imported]);

  const newChat = useCallback(
    (preset?: number): void =>
      void creating.run(async () => {
        const row = preset === undefined ? await api.createChat({}) : await api.createChatFromPreset(preset);
        // Shown at once, in the same render as the switch to it; the reload puts it in its place.
        chatsLoad.setData([row, ...chatsRef.current.filter((c) => c.id !== row.id)]);
        setCurrent(row.id);
        setView("chat");
        await reloadChats();
      }),
    [creating.run, chatsLoad.setData, reloadChats],
  );

  /** A new chat like `from` (its provider, model, prompt and workspace), opened with `text` in its composer. */
  const carryOver = useCallback(
    (from: ChatRow, text: string): void =>
      void creating.run(async () => {
        const row = await api.createChat({
          title: t("summary.title", { title: chatTitle(from) }),
          ...(from.providerId === null ? {} : { providerId: from.providerId }),
          model: from.model,
          systemPrompt: from.systemPrompt,
          ...(from.workspace === null ? {} : { workspace: from.workspace }),
        });
        leaveDraft(row.id, text);
        chatsLoad.setData([row, ...chatsRef.current.filter((c) => c.id !== row.id)]);
        setCurrent(row.id);
        setView("chat");
        await reloadChats();
      }),
    [creating.run, chatsLoad.setData, reloadChats],
  );

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (mod && !e.shiftKey && !e.altKey && e.key.toLowerCase() === "n") {
        e.preventDefault();
        newChat();
      } else if (mod && !e.shiftKey && !e.altKey && e.key.toLowerCase() === "k") {
        e.preventDefault();
        searchRef.current?.focus();
        searchRef.current?.select();
      } else if (e.key === "Escape" && confirm) {
        e.preventDefault();
        setConfirm(null);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [newChat, confirm]);

  const askConfirm = (message: string, action: () => Promise<void>) => {
    confirming.setError(null);
    setConfirm({ message, action });
  };

  const deleteChat = (chat: ChatRow) =>
    askConfirm(t("sidebar.confirmDelete", { title: chatTitle(chat) }), async () => {
      await api.deleteChat(chat.id);
      chatStore.delete(chat.id);
      if (current === chat.id) setCurrent(null);
      await reloadChats();
      await reloadWaiting();
    });

  const hasRealProvider = providers.data !== undefined && providers.data.some((p) => p.kind !== "demo");
  const showInvite = providers.data !== undefined && !hasRealProvider && !inviteDismissed;
  // Failures of the sidebar's own work: the badges (waiting counts) and the New chat button.
  const sidebarNotices = [
    ...(waiting.error !== null ? [t("sidebar.waitingFailed", { message: waiting.error })] : []),
    ...(creating.error !== null ? [t("sidebar.newChatFailed", { message: creating.error })] : []),
    ...(importing.error !== null ? [t("sidebar.importFailed", { message: importing.error })] : []),
  ];

  const toggleLog = () => {
    setShowLog(!showLog);
    store("tollgate.showLog", showLog ? "0" : "1");
  };

  return (
    <div class={`app${showLog && view === "chat" && currentChat ? " with-log" : ""}`}>
      <Sidebar
        chats={chats}
        moreChats={chatsLoad.more}
        onMoreChats={() => void chatsLoad.loadMore()}
        loadError={chatsLoad.error}
        notices={sidebarNotices}
        current={view === "chat" ? currentId : null}
        waiting={waiting.data ?? {}}
        onSelect={(id) => {
          setCurrent(id);
          setView("chat");
        }}
        onNew={() => newChat()}
        presets={presets.data ?? []}
        onNewFromPreset={(id) => newChat(id)}
        onImport={importChats}
        status={imported !== null ? t("sidebar.imported", { count: imported }) : null}
        onRenamed={() => void reloadChats()}
        onDelete={deleteChat}
        onSettings={() => setView(view === "settings" ? "chat" : "settings")}
        settingsOpen={view === "settings"}
        searchRef={searchRef}
      />
      <main class="main">
        {view === "settings" ? (
          <SettingsScreen
            tab={tab}
            onTab={setTab}
            settings={settings.data ?? null}
            settingsError={settings.error}
            onReloadSettings={() => void settings.reload()}
            onSettings={applySettings}
            chats={chats}
            currentChat={currentId}
            onConfirm={askConfirm}
            onBack={() => setView("chat")}
          />
        ) : currentChat && chatPaneReady ? (
          <ChatView
            key={currentChat.id}
            chat={currentChat}
            providers={providers.data ?? null}
            providersError={providers.error}
            showLog={showLog}
            onToggleLog={toggleLog}
            showDemoInvite={showInvite}
            onDismissInvite={() => {
              setInviteDismissed(true);
              store("tollgate.inviteDismissed", "1");
            }}
            onOpenProviders={() => {
              setTab("providers");
              setView("settings");
            }}
            onChatChanged={() => void reloadChats()}
            onCarryOver={(text) => carryOver(currentChat, text)}
          />
        ) : currentChat || (chatsLoad.data === undefined && chatsLoad.error === null) ? (
          <div class="state state--center" role="status">
            <span class="spinner" aria-hidden="true" /> {t("common.loading")}
          </div>
        ) : chatsLoad.error !== null ? (
          <div class="state state--center state--error" role="alert">
            {t("common.backendDown", { message: chatsLoad.error })}
          </div>
        ) : (
          <div class="welcome">
            <h2>{chats.length ? t("chat.noChatTitle") : t("chat.emptyTitle")}</h2>
            <p class="muted">{chats.length ? t("chat.noChatBody") : t("chat.emptyBody")}</p>
            <button type="button" class="btn btn--primary" onClick={() => newChat()}>
              <Icon name="plus" /> {t("sidebar.newChat")}
            </button>
            <p class="muted small">{t("shortcuts.hint")}</p>
          </div>
        )}
      </main>
      {showLog && view === "chat" && currentChat && chatPaneReady ? <ToolLog chat={currentChat.id} onClose={toggleLog} /> : null}
      {confirm ? (
        <div class="dialog-backdrop" onMouseDown={(e) => e.target === e.currentTarget && setConfirm(null)}>
          <div class="dialog" role="alertdialog" aria-modal="true">
            <p>{confirm.message}</p>
            {confirming.error ? <p class="inline-error">{confirming.error}</p> : null}
            <div class="row row--end">
              <button type="button" class="btn" onClick={() => setConfirm(null)}>
                {t("common.cancel")}
              </button>
              <button
                type="button"
                class="btn btn--danger"
                ref={(b) => b?.focus()}
                onClick={() => {
                  void confirming.run(confirm.action).then((done) => {
                    if (done) setConfirm(null);
                  });
                }}
              >
                {t("common.delete")}
              </button>
            </div>
          </div>
        </div>
      ) : null}
    </div>
  );
}
