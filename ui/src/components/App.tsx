import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import * as api from "../api";
import { chatTitle, errorMessage } from "../format";
import { setLanguage, t } from "../i18n";
import * as session from "../session";
import { chatStore } from "../store";
import type { ChatId, ChatRow, Provider, Settings, Theme } from "../types";
import { ChatView } from "./ChatView";
import { Icon } from "./icons";
import { type SettingsTab, SettingsView } from "./Settings";
import { Sidebar } from "./Sidebar";
import { ToolLog } from "./ToolLog";

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

interface Confirm {
  message: string;
  action: () => Promise<void>;
}

export function App() {
  const [chats, setChats] = useState<ChatRow[]>([]);
  const [chatsLoaded, setChatsLoaded] = useState(false);
  const [chatsError, setChatsError] = useState<string | null>(null);
  const [current, setCurrent] = useState<ChatId | null>(null);
  const [view, setView] = useState<"chat" | "settings">("chat");
  const [tab, setTab] = useState<SettingsTab>("providers");
  const [settings, setSettings] = useState<Settings | null>(null);
  const [providers, setProviders] = useState<Provider[] | null>(null);
  const [inviteDismissed, setInviteDismissed] = useState(stored("tollgate.inviteDismissed") === "1");
  const [showLog, setShowLog] = useState(stored("tollgate.showLog") === "1");
  const [waiting, setWaiting] = useState<Record<string, number>>({});
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const [confirmError, setConfirmError] = useState<string | null>(null);
  const [, setLang] = useState("en");
  const searchRef = useRef<HTMLInputElement>(null);
  const currentRef = useRef<ChatId | null>(null);
  currentRef.current = current;
  const chatsRef = useRef<ChatRow[]>([]);
  chatsRef.current = chats;

  const loadChats = useCallback(async (select?: ChatId) => {
    try {
      const rows = await api.listChats();
      setChats(rows);
      setChatsError(null);
      setCurrent((cur) => {
        if (select !== undefined) return select;
        if (cur !== null && rows.some((r) => r.id === cur)) return cur;
        return rows[0]?.id ?? null;
      });
    } catch (e) {
      setChatsError(errorMessage(e));
    } finally {
      setChatsLoaded(true);
    }
  }, []);

  const refreshWaiting = useCallback(() => {
    api
      .waitingCounts()
      .then(setWaiting)
      .catch(() => {});
  }, []);

  const loadProviders = useCallback(() => {
    api
      .listProviders()
      .then(setProviders)
      .catch(() => setProviders(null));
  }, []);

  const applySettings = useCallback((s: Settings) => {
    setSettings(s);
    applyTheme(s.app.theme);
    setLanguage(s.app.language);
    setLang(s.app.language);
  }, []);

  useEffect(() => {
    void loadChats();
    refreshWaiting();
    loadProviders();
    api
      .getSettings()
      .then(applySettings)
      .catch(() => {});
    session.setTurnEndListener(() => {
      void loadChats();
      refreshWaiting();
    });

    // Background chats: refresh badges, and the open chat if its turn is not ours.
    let reloadTimer: ReturnType<typeof setTimeout> | undefined;
    const unlisten = api.onGateEvent((event) => {
      refreshWaiting();
      const chat = "chat" in event ? event.chat : event.approval.chat;
      if (chat === currentRef.current && !session.isLive(chat)) {
        clearTimeout(reloadTimer);
        reloadTimer = setTimeout(() => void session.loadChat(chat).catch(() => {}), 150);
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
      waitTimer = setTimeout(refreshWaiting, 200);
    });
    return () => {
      unsubscribe();
      void unlisten.then((f) => f());
    };
  }, []);

  const newChat = useCallback(async () => {
    try {
      const row = await api.createChat({});
      setView("chat");
      await loadChats(row.id);
    } catch (e) {
      setChatsError(errorMessage(e));
    }
  }, [loadChats]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (mod && !e.shiftKey && !e.altKey && e.key.toLowerCase() === "n") {
        e.preventDefault();
        void newChat();
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
    setConfirmError(null);
    setConfirm({ message, action });
  };

  const deleteChat = (chat: ChatRow) =>
    askConfirm(t("sidebar.confirmDelete", { title: chatTitle(chat) }), async () => {
      await api.deleteChat(chat.id);
      chatStore.delete(chat.id);
      if (current === chat.id) setCurrent(null);
      await loadChats();
      refreshWaiting();
    });

  const currentChat = chats.find((c) => c.id === current) ?? null;
  const hasRealProvider = providers !== null && providers.some((p) => p.kind !== "demo");
  const showInvite = providers !== null && !hasRealProvider && !inviteDismissed;

  const toggleLog = () => {
    setShowLog(!showLog);
    store("tollgate.showLog", showLog ? "0" : "1");
  };

  return (
    <div class={`app${showLog && view === "chat" && currentChat ? " with-log" : ""}`}>
      <Sidebar
        chats={chats}
        loadError={chatsError}
        current={view === "chat" ? current : null}
        waiting={waiting}
        onSelect={(id) => {
          setCurrent(id);
          setView("chat");
        }}
        onNew={() => void newChat()}
        onRenamed={() => void loadChats()}
        onDelete={deleteChat}
        onSettings={() => setView(view === "settings" ? "chat" : "settings")}
        settingsOpen={view === "settings"}
        searchRef={searchRef}
      />
      <main class="main">
        {view === "settings" ? (
          <SettingsView
            tab={tab}
            onTab={setTab}
            settings={settings}
            onSettings={applySettings}
            chats={chats}
            currentChat={current}
            onProvidersChanged={loadProviders}
            onConfirm={askConfirm}
            onBack={() => setView("chat")}
          />
        ) : currentChat ? (
          <ChatView
            key={currentChat.id}
            chat={currentChat}
            providers={providers}
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
            onChatChanged={() => void loadChats()}
          />
        ) : !chatsLoaded ? (
          <div class="state state--center" role="status">
            <span class="spinner" aria-hidden="true" /> {t("common.loading")}
          </div>
        ) : chatsError ? (
          <div class="state state--center state--error" role="alert">
            {t("common.backendDown", { message: chatsError })}
          </div>
        ) : (
          <div class="welcome">
            <h2>{chats.length ? t("chat.noChatTitle") : t("chat.emptyTitle")}</h2>
            <p class="muted">{chats.length ? t("chat.noChatBody") : t("chat.emptyBody")}</p>
            <button type="button" class="btn btn--primary" onClick={() => void newChat()}>
              <Icon name="plus" /> {t("sidebar.newChat")}
            </button>
            <p class="muted small">{t("shortcuts.hint")}</p>
          </div>
        )}
      </main>
      {showLog && view === "chat" && currentChat ? <ToolLog chat={currentChat.id} onClose={toggleLog} /> : null}
      {confirm ? (
        <div class="dialog-backdrop" onMouseDown={(e) => e.target === e.currentTarget && setConfirm(null)}>
          <div class="dialog" role="alertdialog" aria-modal="true">
            <p>{confirm.message}</p>
            {confirmError ? <p class="inline-error">{confirmError}</p> : null}
            <div class="row row--end">
              <button type="button" class="btn" onClick={() => setConfirm(null)}>
                {t("common.cancel")}
              </button>
              <button
                type="button"
                class="btn btn--danger"
                ref={(b) => b?.focus()}
                onClick={() => {
                  confirm
                    .action()
                    .then(() => setConfirm(null))
                    .catch((e: unknown) => setConfirmError(errorMessage(e)));
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
