import type { ComponentChildren, RefObject } from "preact";
import { memo } from "preact/compat";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import * as api from "../api";
import { chatTitle, errorMessage, formatDuration, formatTokens } from "../format";
import { type Key, t } from "../i18n";
import { type LinkTarget, linkTarget } from "../links";
import { type MarkdownBlocks, markdownReadyNow, renderBlocks, renderMarkdownCached } from "../markdown";
import * as session from "../session";
import { type ChatAction, type ChatAlert, callsFor, type ChatState, PENDING_USER_ID, type TimelineMessage } from "../timeline";
import { addAttachments, MAX_ATTACHMENTS } from "../files";
import { forgetTyping } from "../typing";
import type { Attachment, ChatId, ChatRow, ExportFormat, McpPromptView, McpResourceView, PendingApproval, ProviderConfig } from "../types";
import { ApprovalCard, QuestionCard } from "./ApprovalCard";
import { Attachments } from "./Attachments";
import { useAction, useAutoGrow, useChatState, useDismiss, useFollowBottom, useLoad } from "./hooks";
import { Icon } from "./icons";
import { matchingPrompts, PromptForm, PromptMenu, ResourceButton, useMcpCatalog } from "./McpPicker";
import { ParamsFields, type ParamsText, ProviderOptions, paramsText, readParams } from "./params";
import { SandboxSettings } from "./Sandbox";
import { ToolCard } from "./ToolCard";
import { VIRTUALIZE_FROM, VirtualList } from "./VirtualList";

/**
 * Rendered markdown. While `streaming`, the text is rendered block by block and only the block
 * still being written is rendered again as text arrives (see `renderBlocks`), and the blocks stay
 * when it finishes; a text that was never streamed here is rendered whole.
 */
export function Markdown({ text, streaming = false }: { text: string; streaming?: boolean | undefined }) {
  const blocks = useRef<MarkdownBlocks | undefined>(undefined);
  // A text rendered whole waits for a frame with room for it (`markdownReadyNow`); until then
  // it shows as plain text.
  const whole = !streaming && blocks.current === undefined;
  const [waiting, setWaiting] = useState(() => whole && !markdownReadyNow(text));
  useEffect(() => {
    if (!waiting) return;
    let frame = requestAnimationFrame(function retry() {
      if (markdownReadyNow(text)) setWaiting(false);
      else frame = requestAnimationFrame(retry);
    });
    return () => cancelAnimationFrame(frame);
  }, [waiting, text]);
  const parts = useMemo(() => {
    if (waiting) return [];
    // An answer that was streamed here keeps its blocks when it finishes (rendering 50,000
    // characters whole at that moment would stall the window); others render whole, once.
    if (whole) return [renderMarkdownCached(text)];
    blocks.current = renderBlocks(text, blocks.current);
    return [...blocks.current.sealed, blocks.current.tail];
  }, [text, streaming, waiting, whole]);
  const [asking, setAsking] = useState<LinkTarget | null>(null);
  const opening = useAction();
  const open = (target: LinkTarget) => void opening.run(() => api.openExternal(target.href));
  if (waiting) return <div class="markdown markdown--waiting">{text}</div>;
  return (
    <>
      <div
        class="markdown"
        onClick={(e) => {
          const copy = (e.target as HTMLElement).closest<HTMLButtonElement>(".copy-code");
          if (copy) {
            const code = copy.parentElement?.querySelector("code")?.textContent ?? "";
            void copyWithFeedback(code, copy);
            return;
          }
          // A link never navigates the app window: it opens in the system browser, after
          // showing its full target when its text reads otherwise (F-59).
          const a = (e.target as HTMLElement).closest("a");
          if (!a) return;
          e.preventDefault();
          const target = linkTarget(a.getAttribute("href") ?? "", a.textContent ?? "");
          if (target.openable && !target.differs) open(target);
          else setAsking(target);
        }}
      >
        {parts.map((html, i) => (
          <MarkdownBlock key={i} html={html} />
        ))}
      </div>
      {opening.error ? <p class="inline-error">{t("chat.linkFailed", { message: opening.error })}</p> : null}
      {asking ? (
        <LinkDialog
          target={asking}
          onClose={() => setAsking(null)}
          onOpen={() => {
            setAsking(null);
            open(asking);
          }}
        />
      ) : null}
    </>
  );
}

/**
 * One block of rendered markdown, drawn again only when its HTML changes (a finished block of a
 * streamed answer never does).
 */
const MarkdownBlock = memo(function MarkdownBlock({ html }: { html: string }) {
  const box = useRef<HTMLDivElement>(null);
  // A copy button on every code block. Made here with DOM calls, never from the model's HTML
  // (which may not contain buttons at all: DOMPurify removes them).
  useLayoutEffect(() => {
    for (const pre of box.current?.querySelectorAll("pre") ?? []) {
      if (pre.querySelector(":scope > .copy-code")) continue;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "copy-code";
      button.dataset.role = "copy-code";
      button.textContent = t("chat.copy");
      button.setAttribute("aria-label", t("chat.copyCode"));
      pre.append(button);
    }
  }, [html]);
  // Sanitised by renderMarkdown / renderBlocks (DOMPurify); raw HTML from the model is escaped.
  return <div ref={box} class="md-block" dangerouslySetInnerHTML={{ __html: html }} />;
});

/** Copies `text` and says so on `button` for a moment (or that it failed). */
async function copyWithFeedback(text: string, button: HTMLButtonElement): Promise<void> {
  let word: string;
  try {
    await api.copyText(text);
    word = t("chat.copied");
  } catch {
    word = t("chat.copyFailed");
  }
  button.textContent = word;
  setTimeout(() => {
    button.textContent = t("chat.copy");
  }, 1500);
}

/** Copies a whole message as its markdown source. */
function CopyMessage({ text }: { text: string }) {
  const [word, setWord] = useState<"copy" | "copied" | "failed">("copy");
  useEffect(() => {
    if (word === "copy") return;
    const timer = setTimeout(() => setWord("copy"), 1500);
    return () => clearTimeout(timer);
  }, [word]);
  return (
    <button
      type="button"
      class="link-btn copy-message"
      data-role="copy-message"
      title={t("chat.copyMessage")}
      aria-label={t("chat.copyMessage")}
      onClick={() => {
        api.copyText(text).then(
          () => setWord("copied"),
          () => setWord("failed"),
        );
      }}
    >
      <Icon name="copy" /> {word === "copied" ? t("chat.copied") : word === "failed" ? t("chat.copyFailed") : t("chat.copy")}
    </button>
  );
}

/** Shows where a link really goes before it opens; a link that cannot leave the app says so. */
function LinkDialog({ target, onOpen, onClose }: { target: LinkTarget; onOpen: () => void; onClose: () => void }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.preventDefault();
        onClose();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);
  return (
    <div class="dialog-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div class="dialog" role="alertdialog" aria-modal="true" aria-labelledby="link-dialog-title" data-role="link-dialog">
        <p id="link-dialog-title">{target.openable ? t("chat.linkDiffers") : t("chat.linkRefused")}</p>
        <code class="link-target">{target.href}</code>
        <div class="row row--end">
          <button type="button" class="btn" ref={(b) => b?.focus()} onClick={onClose}>
            {target.openable ? t("common.cancel") : t("common.close")}
          </button>
          {target.openable ? (
            <button type="button" class="btn btn--primary" onClick={onOpen} data-role="open-link">
              {t("chat.linkOpen")}
            </button>
          ) : null}
        </div>
      </div>
    </div>
  );
}

interface Props {
  chat: ChatRow;
  /** The configured providers (null while loading or if they could not be read). */
  providers: ProviderConfig[] | null;
  /** Why the providers could not be read, shown in the model picker. */
  providersError: string | null;
  showLog: boolean;
  onToggleLog: () => void;
  showDemoInvite: boolean;
  onDismissInvite: () => void;
  onOpenProviders: () => void;
  onChatChanged: () => void;
}

export function ChatView(props: Props) {
  const { chat } = props;
  const state = useChatState(chat.id);
  const { error: loadError, loading } = useLoad(() => session.loadChat(chat.id), [chat.id]);
  const scroller = useRef<HTMLDivElement>(null);
  const { stick, onScroll } = useFollowBottom(scroller, chat.id, state);

  const empty = !loading && !loadError && state.messages.length === 0;

  return (
    <section class="chat" aria-label={chat.title} data-chat={chat.id}>
      <ChatHeader {...props} />
      <div class="chat-scroll" ref={scroller} onScroll={onScroll}>
        <div class="timeline">
          {props.showDemoInvite ? (
            <div class="banner">
              <span>{t("chat.demoBanner")}</span>
              <button type="button" class="btn btn--primary btn--small" onClick={props.onOpenProviders}>
                {t("chat.addProvider")}
              </button>
              <button type="button" class="btn btn--ghost btn--small" onClick={props.onDismissInvite}>
                {t("chat.dismiss")}
              </button>
            </div>
          ) : null}
          {loading && state.messages.length === 0 ? (
            <div class="state" role="status">
              <span class="spinner" aria-hidden="true" /> {t("common.loading")}
            </div>
          ) : null}
          {loadError ? (
            <div class="state state--error" role="alert">
              {t("chat.loadFailed", { message: loadError })}
            </div>
          ) : null}
          {empty ? <EmptyChat chat={chat} /> : null}
          <Timeline state={state} chat={chat} providers={props.providers} scroller={scroller} stick={stick} />
        </div>
      </div>
      <Composer chat={chat} state={state} />
    </section>
  );
}

function EmptyChat({ chat }: { chat: ChatRow }) {
  const suggestions = [t("chat.suggest1"), t("chat.suggest2"), t("chat.suggest3")];
  return (
    <div class="empty-chat">
      <h2>{t("chat.emptyTitle")}</h2>
      <p class="muted">{t("chat.emptyBody")}</p>
      <div class="suggestions">
        {suggestions.map((s) => (
          <button key={s} type="button" class="suggestion" onClick={() => void session.send(chat.id, s)}>
            {s}
          </button>
        ))}
      </div>
    </div>
  );
}

function Timeline({
  state,
  chat,
  providers,
  scroller,
  stick,
}: {
  state: ChatState;
  chat: ChatRow;
  providers: ProviderConfig[] | null;
  scroller: RefObject<HTMLDivElement | null>;
  stick: RefObject<boolean>;
}) {
  const placed = new Set<string>();
  const total = state.approvals.length;
  const queueIndex = new Map(state.approvals.map((a, i) => [a.id, i]));
  const approvalCard = (a: PendingApproval) => {
    placed.add(a.id);
    const i = queueIndex.get(a.id) ?? 0;
    return (
      <ApprovalCard
        key={a.id}
        approval={a}
        active={i === 0}
        position={i + 1}
        total={total}
        onDecided={(id) => session.resolveLocally(state.chat, id)}
      />
    );
  };
  const questionCard = (q: ChatState["questions"][number]) => {
    placed.add(q.id);
    return (
      <QuestionCard
        key={q.id}
        chat={state.chat}
        id={q.id}
        question={q.question}
        choices={q.choices}
        onAnswered={(id) => session.resolveLocally(state.chat, id)}
      />
    );
  };
  const lastAssistant = [...state.messages].reverse().find((m) => m.role === "assistant");

  const renderMessage = (m: TimelineMessage, index: number) => {
    if (m.role === "user") {
      return <UserMessage key={m.id} chat={state.chat} message={m} running={state.running} />;
    }
    // The last answer of a turn can be regenerated (the turn's answers are one run of messages).
    const endsTurn = state.messages[index + 1]?.role !== "assistant";
    const regenerable = endsTurn && !state.running && m.status !== "streaming";
    const calls = callsFor(state, m.id);
    const streaming = m.status === "streaming";
    return (
      <div key={m.id} class="msg msg--assistant" data-message={m.id}>
        {m.reasoning ? <Thinking text={m.reasoning} live={streaming && !m.content && calls.length === 0} /> : null}
        {m.retry ? <RetryNotice message={m} /> : null}
        {m.content ? <Markdown text={m.content} streaming={streaming} /> : null}
        {streaming && !m.content && !m.reasoning && !m.retry && calls.length === 0 ? <span class="typing" aria-label={t("chat.running")} /> : null}
        {calls.length ? (
          <div class="tool-cards">
            {calls.map((c) => (
              <div key={c.seq}>
                <ToolCard call={c} onRerun={state.running ? undefined : (command) => void session.rerunUnsandboxed(state.chat, c.seq, command)} />
                {state.approvals.filter((a) => a.seq === c.seq).map(approvalCard)}
                {state.questions.filter((q) => q.seq === c.seq).map(questionCard)}
              </div>
            ))}
          </div>
        ) : null}
        <MessageFooter message={m}>
          <VersionSwitcher chat={state.chat} message={m} running={state.running} />
          {regenerable ? <RegenerateButtons chat={chat} message={m} providers={providers} /> : null}
        </MessageFooter>
      </div>
    );
  };
  // Long chats render only the messages near the viewport; approvals always sit in the last
  // messages, which are rendered whenever the view is at the bottom.
  // A chat still reading its earlier pages is windowed from the start: it grows at the top.
  const items =
    state.messages.length >= VIRTUALIZE_FROM || state.earlier !== null ? (
      <VirtualList
        items={state.messages.map((m, i) => ({ key: m.id, render: () => renderMessage(m, i) }))}
        scroller={scroller}
        stick={stick}
        head={state.earlier !== null ? <EarlierMessages chat={state.chat} failed={state.alert?.action === "reload"} /> : null}
      />
    ) : (
      state.messages.map(renderMessage)
    );

  const rest = [
    ...state.approvals.filter((a) => !placed.has(a.id)).map(approvalCard),
    ...state.questions.filter((q) => !placed.has(q.id)).map(questionCard),
  ];

  return (
    <>
      {items}
      {rest.length ? <div class="msg msg--assistant">{rest}</div> : null}
      {state.retrying && state.retrying.messageId === null ? (
        <div class="notice notice--warn" role="status" data-role="retrying">
          {t("chat.retrying", {
            attempt: state.retrying.attempt,
            max: state.retrying.maxRetries,
            delay: formatDuration(state.retrying.delayMs),
            error: state.retrying.error,
          })}
        </div>
      ) : null}
      {state.running && (!lastAssistant || lastAssistant.status !== "streaming") && !rest.length ? (
        <div class="msg msg--assistant">
          <span class="typing" aria-label={t("chat.running")} />
        </div>
      ) : null}
      {state.error && !state.running ? <TurnError state={state} /> : null}
    </>
  );
}

/**
 * Above the first message while the chat's earlier messages are still being read: says so, or,
 * when a read failed (the chat's alert says why), offers to read them again.
 */
function EarlierMessages({ chat, failed }: { chat: ChatId; failed: boolean }) {
  return failed ? (
    <button type="button" class="btn btn--ghost btn--small" data-role="load-earlier" onClick={() => void session.readEarlier(chat)}>
      {t("chat.loadEarlier")}
    </button>
  ) : (
    <span class="muted" role="status" data-role="loading-earlier">
      <span class="spinner" aria-hidden="true" /> {t("chat.loadingEarlier")}
    </span>
  );
}

function TurnError({ state }: { state: ChatState }) {
  const [busy, setBusy] = useState(false);
  const error = state.error;
  if (!error) return null;
  return (
    <div class="notice notice--error" role="alert">
      <div>
        <strong>{t("chat.failed")}</strong>
        <div class="notice-detail">{error.message || t("chat.failedUnknown")}</div>
      </div>
      {error.retryable ? (
        <button
          type="button"
          class="btn"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            // A retry that cannot start brings this error back and says why above the composer.
            void session.retry(state.chat).finally(() => setBusy(false));
          }}
        >
          ↻ {t("common.retry")}
        </button>
      ) : null}
    </div>
  );
}

/**
 * The model's reasoning, above its answer: open while the model is still thinking, folded once
 * the answer starts — unless the user opened or closed it, which then stays as they left it.
 */
function Thinking({ text, live }: { text: string; live: boolean }) {
  const [chosen, setChosen] = useState<boolean | null>(null);
  const open = chosen ?? live;
  return (
    <details
      class="thinking"
      data-role="thinking"
      open={open}
      onToggle={(e) => {
        const now = e.currentTarget.open;
        if (now !== open) setChosen(now);
      }}
    >
      <summary>{live ? t("chat.thinkingLive") : t("chat.thinking")}</summary>
      <div class="thinking-body">
        <Markdown text={text} streaming={live} />
      </div>
    </details>
  );
}

/** A broken stream being tried again: its text is gone, and this stands in its place. */
function RetryNotice({ message }: { message: TimelineMessage }) {
  const r = message.retry;
  if (!r) return null;
  const words = { attempt: r.attempt, max: r.maxRetries };
  return (
    <div class="retry-notice" role="status" data-role="retry-notice">
      <span>{message.status === "streaming" ? t("chat.retryNotice", words) : t("chat.retryInterrupted", words)}</span>
      <small class="muted">{r.error}</small>
    </div>
  );
}

function MessageFooter({ message, children }: { message: TimelineMessage; children?: ComponentChildren }) {
  const marks = [];
  if (message.status === "stopped") marks.push(<span class="marker marker--stopped">■ {t("chat.stopped")}</span>);
  if (message.status === "interrupted") marks.push(<span class="marker marker--stopped">⚠ {t("chat.interrupted")}</span>);
  if (message.status === "error") marks.push(<span class="marker marker--error">✕ {t("chat.failed")}</span>);
  const copyable = message.content.trim() !== "" && message.status !== "streaming";
  return (
    <div class="msg-footer">
      {marks}
      {children}
      {copyable ? <CopyMessage text={message.content} /> : null}
      {message.model && message.status !== "streaming" ? <span class="muted small msg-model">{message.model}</span> : null}
      {message.usage ? (
        <span class="usage" title="tokens">
          {t("chat.usage", { input: formatTokens(message.usage.inputTokens), output: formatTokens(message.usage.outputTokens) })}
          {message.usage.cacheReadTokens ? ` · ${t("chat.usageCached", { cached: formatTokens(message.usage.cacheReadTokens) })}` : null}
        </span>
      ) : null}
    </div>
  );
}

/** Drafts of edits whose sending failed, by message: the edit opens again with the text. */
const editDrafts = new Map<number, string>();

/** A message of the user's, with Edit (a new version, F-56), its versions and Copy. */
function UserMessage({ chat, message, running }: { chat: ChatId; message: TimelineMessage; running: boolean }) {
  const [editing, setEditing] = useState(editDrafts.has(message.id));
  if (editing) {
    return (
      <EditMessage
        initial={editDrafts.get(message.id) ?? message.content}
        onCancel={() => {
          editDrafts.delete(message.id);
          setEditing(false);
        }}
        onSend={(text) => {
          editDrafts.set(message.id, text);
          setEditing(false);
          forgetTyping();
          // A failed send restores the chat; the edit opens again with its text (on a fresh
          // mount through the draft, or here when the message never left the screen).
          void session.edit(chat, message.id, text).then((sent) => {
            if (sent) editDrafts.delete(message.id);
            else setEditing(true);
          });
        }}
      />
    );
  }
  const saved = message.id !== PENDING_USER_ID;
  return (
    <div class="msg msg--user" data-message={message.id}>
      {message.attachments?.length ? <Attachments files={message.attachments} /> : null}
      {message.content ? <div class="bubble">{message.content}</div> : null}
      <div class={`msg-footer msg-footer--user${(message.siblings?.length ?? 0) > 1 ? " has-versions" : ""}`}>
        <VersionSwitcher chat={chat} message={message} running={running} />
        {saved ? (
          <button
            type="button"
            class="link-btn"
            data-role="edit-message"
            disabled={running}
            title={t("chat.editMessage")}
            onClick={() => setEditing(true)}
          >
            <Icon name="pencil" /> {t("chat.edit")}
          </button>
        ) : null}
        <CopyMessage text={message.content} />
      </div>
    </div>
  );
}

/** The editor that replaces a user message while it is edited: Enter sends, Escape cancels. */
function EditMessage({ initial, onSend, onCancel }: { initial: string; onSend: (text: string) => void; onCancel: () => void }) {
  const [text, setText] = useState(initial);
  const area = useRef<HTMLTextAreaElement>(null);
  useLayoutEffect(() => {
    const el = area.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  useAutoGrow(area, text, 320);
  const send = () => {
    const value = text.trim();
    if (value) onSend(value);
  };
  return (
    <form
      class="msg msg--user edit-form"
      data-role="edit-form"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <textarea
        ref={area}
        value={text}
        aria-label={t("chat.editMessage")}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            send();
          } else if (e.key === "Escape") {
            e.preventDefault();
            e.stopPropagation();
            onCancel();
          }
        }}
      />
      <div class="row row--end">
        <small class="muted edit-hint">{t("chat.editHint")}</small>
        <button type="button" class="btn btn--small" onClick={onCancel}>
          {t("common.cancel")}
        </button>
        <button type="submit" class="btn btn--primary btn--small" disabled={!text.trim()}>
          {t("chat.editSend")}
        </button>
      </div>
    </form>
  );
}

/** ‹ 2/3 ›: moves between the versions of a message (edits, regenerated answers; F-56). */
function VersionSwitcher({ chat, message, running }: { chat: ChatId; message: TimelineMessage; running: boolean }) {
  const versions = message.siblings ?? [];
  const at = versions.indexOf(message.id);
  if (versions.length < 2 || at < 0) return null;
  const show = (i: number) => {
    const id = versions[i];
    if (id !== undefined) void session.showBranch(chat, id);
  };
  const label = t("chat.versionOf", { n: at + 1, count: versions.length });
  return (
    <span class="versions" role="group" aria-label={label} data-role="versions">
      <button
        type="button"
        class="icon-btn"
        data-role="version-previous"
        disabled={running || at === 0}
        title={t("chat.versionPrevious")}
        aria-label={t("chat.versionPrevious")}
        onClick={() => show(at - 1)}
      >
        <Icon name="chevronLeft" />
      </button>
      <span class="versions-count" title={label}>
        {at + 1}/{versions.length}
      </span>
      <button
        type="button"
        class="icon-btn"
        data-role="version-next"
        disabled={running || at === versions.length - 1}
        title={t("chat.versionNext")}
        aria-label={t("chat.versionNext")}
        onClick={() => show(at + 1)}
      >
        <Icon name="chevronRight" />
      </button>
    </span>
  );
}

/** Regenerate (with the chat's model) and ▾ to regenerate with another model, this answer only. */
function RegenerateButtons({ chat, message, providers }: { chat: ChatRow; message: TimelineMessage; providers: ProviderConfig[] | null }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLSpanElement>(null);
  useDismiss(open, () => setOpen(false), ref);
  const configured = providers?.filter((p) => p.kind !== "demo") ?? [];
  const [providerId, setProviderId] = useState<number | null>(null);
  const [model, setModel] = useState("");
  // Open downwards when there is room below the button, otherwise upwards.
  const [up, setUp] = useState(false);
  useEffect(() => {
    if (!open) return;
    const box = ref.current?.getBoundingClientRect();
    setUp(box !== undefined && window.innerHeight - box.bottom < 300);
    const start = configured.find((p) => p.id === chat.providerId) ?? configured[0];
    setProviderId(start?.id ?? null);
    setModel("");
  }, [open]);
  return (
    <span class="popover-anchor regenerate" ref={ref}>
      <button
        type="button"
        class="link-btn"
        data-role="regenerate"
        title={t("chat.regenerateTitle")}
        onClick={() => void session.regenerate(chat.id, message.id)}
      >
        <Icon name="regenerate" /> {t("chat.regenerate")}
      </button>
      {configured.length ? (
        <button
          type="button"
          data-role="regenerate-with"
          class="link-btn regenerate-more"
          aria-expanded={open}
          title={t("chat.regenerateWith")}
          aria-label={t("chat.regenerateWith")}
          onClick={() => setOpen(!open)}
        >
          ▾
        </button>
      ) : null}
      {open && providerId !== null ? (
        <div class={`popover popover--left${up ? " popover--up" : ""}`} role="dialog" aria-label={t("chat.regenerateWith")}>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              setOpen(false);
              void session.regenerate(chat.id, message.id, { provider: providerId, model: model.trim() });
            }}
          >
            <div class="popover-title">{t("chat.regenerateWithTitle")}</div>
            <ModelFields
              providers={configured}
              providerId={providerId}
              model={model}
              listId={`regen-models-${message.id}`}
              onProvider={(id) => {
                setProviderId(id);
                setModel("");
              }}
              onModel={setModel}
            />
            <div class="row">
              <button type="submit" class="btn btn--primary btn--small" data-role="regenerate-go">
                <Icon name="regenerate" /> {t("chat.regenerate")}
              </button>
            </div>
          </form>
        </div>
      ) : null}
    </span>
  );
}

/**
 * A provider and a model, with the provider's models suggested as the user types. `providerId`
 * null is "the default provider" (offered when `defaultName` is given).
 */
function ModelFields(props: {
  providers: ProviderConfig[];
  providerId: number | null;
  model: string;
  listId: string;
  defaultName?: string;
  onProvider: (id: number | null) => void;
  onModel: (model: string) => void;
}) {
  const { providers, providerId } = props;
  const chosen = providers.find((p) => p.id === providerId) ?? providers[0] ?? null;
  const listed = chosen && chosen.kind !== "demo" ? chosen.id : null;
  const models = useLoad(listed === null ? null : () => api.listModels(listed), [listed]);
  return (
    <>
      <label class="field">
        <span>{t("chat.provider")}</span>
        <select
          value={providerId === null ? "" : String(providerId)}
          onChange={(e) => {
            const v = e.currentTarget.value;
            props.onProvider(v === "" ? null : Number(v));
          }}
        >
          {props.defaultName !== undefined ? <option value="">{t("chat.providerDefault", { name: props.defaultName })}</option> : null}
          <ProviderOptions providers={providers} />
        </select>
      </label>
      <label class="field">
        <span>{t("chat.model")}</span>
        <input
          class="mono"
          list={props.listId}
          value={props.model}
          placeholder={chosen?.defaultModel ?? ""}
          onInput={(e) => props.onModel(e.currentTarget.value)}
        />
        <datalist id={props.listId}>
          {(models.data ?? []).map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <small class="muted">{t("chat.modelHint")}</small>
        {models.error ? <small class="inline-error">{t("chat.modelsFailed", { message: models.error })}</small> : null}
      </label>
    </>
  );
}

/** The words for a failed chat action. */
function alertKey(action: ChatAction): Key {
  switch (action) {
    case "send":
      return "chat.sendFailed";
    case "stop":
      return "chat.stopFailed";
    case "retry":
      return "chat.retryFailed";
    case "reload":
      return "chat.reloadFailed";
    case "edit":
      return "chat.editFailed";
    case "regenerate":
      return "chat.regenerateFailed";
    case "branch":
      return "chat.branchFailed";
    case "rerun":
      return "chat.rerunFailed";
  }
}

/** The chat's last failed action (send, Stop, Retry, a reload), right above the composer where the user acted. */
function AlertBanner({ chat, alert }: { chat: ChatId; alert: ChatAlert }) {
  return (
    <div class="notice notice--error chat-alert" role="alert" data-role="chat-alert" data-action={alert.action}>
      <span class="notice-detail">{t(alertKey(alert.action), { message: alert.message })}</span>
      <button type="button" class="icon-btn" title={t("chat.dismiss")} aria-label={t("chat.dismiss")} onClick={() => session.dismissAlert(chat)}>
        ✕
      </button>
    </div>
  );
}

function Composer({ chat, state }: { chat: ChatRow; state: ChatState }) {
  const [text, setText] = useState("");
  const [files, setFiles] = useState<Attachment[]>([]);
  const [fileError, setFileError] = useState<string | null>(null);
  const [dropping, setDropping] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const running = state.running;
  const catalog = useMcpCatalog();
  const [promptForm, setPromptForm] = useState<McpPromptView | null>(null);
  const [activePrompt, setActivePrompt] = useState(0);
  const [slashClosed, setSlashClosed] = useState<string | null>(null);
  // `/name` alone in the composer lists the servers' prompts (F-45).
  const slash = !running && !promptForm && /^\/\S*$/.test(text) && slashClosed !== text && catalog.prompts.length > 0;
  const offered = slash ? matchingPrompts(catalog.prompts, text) : [];

  useEffect(() => {
    if (!running) area.current?.focus();
  }, [chat.id, running]);

  useAutoGrow(area, text, 240);

  const attach = async (list: File[]) => {
    if (!list.length) return;
    const added = await addAttachments(files, list);
    setFiles(added.attachments);
    setFileError(added.error);
  };

  const withFiles = (more: Attachment[]) => {
    const all = [...files, ...more];
    setFiles(all.slice(0, MAX_ATTACHMENTS));
    setFileError(all.length > MAX_ATTACHMENTS ? t("attach.tooMany", { max: MAX_ATTACHMENTS }) : null);
  };

  /** A prompt fills the composer (its text replaces the `/…`) and brings its files. */
  const fillPrompt = async (p: McpPromptView, args: Record<string, string>) => {
    setPromptForm(null);
    try {
      const filled = await api.getMcpPrompt(p.server, p.name, args);
      setText(filled.text);
      withFiles(filled.attachments);
    } catch (e) {
      setFileError(errorMessage(e));
    }
    area.current?.focus();
  };

  const pickPrompt = (p: McpPromptView) => {
    if (p.arguments.length) setPromptForm(p);
    else void fillPrompt(p, {});
  };

  const attachResource = async (r: McpResourceView) => {
    try {
      withFiles(await api.readMcpResource(r.server, r.uri));
    } catch (e) {
      setFileError(errorMessage(e));
    }
    area.current?.focus();
  };

  const submit = () => {
    const value = (area.current?.value ?? text).trim();
    if ((!value && !files.length) || running) return;
    const sending = files;
    setText("");
    // What was typed can no longer be undone in the emptied composer (a failed send puts it back).
    forgetTyping();
    setFiles([]);
    setFileError(null);
    // The banner above says why a message could not be sent; it and its files go back.
    void session.send(chat.id, value, undefined, sending).then((sent) => {
      if (!sent) {
        setText(value);
        setFiles(sending);
      }
    });
  };

  return (
    <div
      class={`composer-wrap${dropping ? " is-dropping" : ""}`}
      onDragOver={(e) => {
        if (!e.dataTransfer?.types.includes("Files")) return;
        e.preventDefault();
        setDropping(true);
      }}
      onDragLeave={(e) => {
        if (e.currentTarget === e.target) setDropping(false);
      }}
      onDrop={(e) => {
        if (!e.dataTransfer?.files.length) return;
        e.preventDefault();
        setDropping(false);
        void attach([...e.dataTransfer.files]);
      }}
    >
      {state.alert ? <AlertBanner chat={chat.id} alert={state.alert} /> : null}
      {state.approvals.length > 0 ? <p class="composer-waiting">{t("chat.waitingBanner", { count: state.approvals.length })}</p> : null}
      {fileError ? (
        <p class="inline-error composer-file-error" role="alert" data-role="attach-error">
          {fileError}
        </p>
      ) : null}
      {slash ? <PromptMenu prompts={offered} active={Math.min(activePrompt, Math.max(offered.length - 1, 0))} onPick={pickPrompt} /> : null}
      {promptForm ? (
        <PromptForm
          prompt={promptForm}
          onFill={(args) => void fillPrompt(promptForm, args)}
          onCancel={() => {
            setPromptForm(null);
            area.current?.focus();
          }}
        />
      ) : null}
      <div class={`composer${running ? " is-running" : ""}`}>
        {files.length ? (
          <Attachments
            files={files}
            onRemove={(i) => {
              setFiles(files.filter((_, j) => j !== i));
              setFileError(null);
            }}
          />
        ) : null}
        <div class="composer-row">
          <button
            type="button"
            class="icon-btn composer-attach"
            data-role="attach"
            title={t("attach.addTitle")}
            aria-label={t("attach.add")}
            disabled={running}
            onClick={() => picker.current?.click()}
          >
            <Icon name="paperclip" />
          </button>
          <ResourceButton resources={catalog.resources} disabled={running} onPick={(r) => void attachResource(r)} />
          <input
            ref={picker}
            type="file"
            multiple
            hidden
            data-role="attach-input"
            onChange={(e) => {
              const input = e.currentTarget;
              void attach([...(input.files ?? [])]).finally(() => {
                input.value = "";
              });
            }}
          />
          <textarea
            ref={area}
            id="composer"
            rows={1}
            value={text}
            disabled={running}
            placeholder={dropping ? t("attach.drop") : running ? t("chat.running") : t("chat.placeholder")}
            onInput={(e) => {
              setText(e.currentTarget.value);
              setActivePrompt(0);
            }}
            onPaste={(e) => {
              const pasted = [...(e.clipboardData?.files ?? [])];
              if (!pasted.length) return;
              e.preventDefault();
              void attach(pasted);
            }}
            onKeyDown={(e) => {
              if (slash && offered.length) {
                const at = Math.min(activePrompt, offered.length - 1);
                if (e.key === "ArrowDown" || e.key === "ArrowUp") {
                  e.preventDefault();
                  const step = e.key === "ArrowDown" ? 1 : offered.length - 1;
                  setActivePrompt((at + step) % offered.length);
                  return;
                }
                if ((e.key === "Enter" && !e.shiftKey && !e.isComposing) || e.key === "Tab") {
                  e.preventDefault();
                  const chosen = offered[at];
                  if (chosen) pickPrompt(chosen);
                  return;
                }
              }
              if (slash && e.key === "Escape") {
                e.preventDefault();
                setSlashClosed(text);
                return;
              }
              if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
                e.preventDefault();
                submit();
              }
            }}
          />
          {running ? (
            <button type="button" class="btn btn--danger" onClick={() => void session.stop(chat.id)}>
              ■ {t("chat.stop")}
            </button>
          ) : (
            <button type="button" class="btn btn--primary" disabled={!text.trim() && !files.length} onClick={submit}>
              {t("chat.send")}
            </button>
          )}
        </div>
      </div>
    </div>
  );
}

function ChatHeader(props: Props) {
  const { chat } = props;
  return (
    <header class="chat-header">
      <div class="chat-title">
        <h1>{chatTitle(chat)}</h1>
        <ModelPicker chat={chat} providers={props.providers} providersError={props.providersError} onChanged={props.onChatChanged} />
      </div>
      <div class="chat-actions">
        <WorkspaceField chat={chat} onChanged={props.onChatChanged} />
        <PromptPopover chat={chat} onChanged={props.onChatChanged} />
        <ToolsPopover chat={chat} onChanged={props.onChatChanged} />
        <ExportMenu chat={chat} />
        <button
          type="button"
          class={`btn btn--ghost${props.showLog ? " is-pressed" : ""}`}
          aria-pressed={props.showLog}
          title={t("chat.log")}
          onClick={props.onToggleLog}
        >
          <Icon name="log" /> <span class="btn-label">{t("chat.log")}</span>
        </button>
      </div>
    </header>
  );
}

function WorkspaceField({ chat, onChanged }: { chat: ChatRow; onChanged: () => void }) {
  const [value, setValue] = useState(chat.workspace ?? "");
  const { error, run } = useAction();
  useEffect(() => setValue(chat.workspace ?? ""), [chat.id, chat.workspace]);
  const save = async (raw: string) => {
    const next = raw.trim() ? raw.trim() : null;
    if (next === (chat.workspace ?? null)) return;
    await api.setChatWorkspace(chat.id, next);
    onChanged();
  };
  const commit = (raw: string) => void run(() => save(raw));
  const pick = () =>
    void run(async () => {
      const folder = await api.pickFolder(t("chat.pickWorkspace"), chat.workspace ?? null);
      if (folder === null) return;
      setValue(folder);
      await save(folder);
    });
  return (
    <div class={`workspace${error ? " has-error" : ""}`} title={error ?? t("chat.workspacePlaceholder")}>
      <button type="button" class="icon-btn workspace-pick" onClick={pick} title={t("chat.pickWorkspace")} aria-label={t("chat.pickWorkspace")}>
        <Icon name="folder" />
      </button>
      <input
        class="mono"
        value={value}
        aria-label={t("chat.workspace")}
        placeholder={t("chat.noWorkspace")}
        onInput={(e) => setValue(e.currentTarget.value)}
        onBlur={(e) => commit(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") (e.currentTarget as HTMLInputElement).blur();
        }}
      />
    </div>
  );
}

/** The chat's provider and model: shown under the title, changed in a small popover. */
function ModelPicker(props: { chat: ChatRow; providers: ProviderConfig[] | null; providersError: string | null; onChanged: () => void }) {
  const { chat, providers, onChanged } = props;
  const [open, setOpen] = useState(false);
  const [providerId, setProviderId] = useState<number | null>(chat.providerId);
  const [model, setModel] = useState(chat.model);
  const saving = useAction();
  const error = props.providersError ?? saving.error;
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, () => setOpen(false), ref);
  useEffect(() => {
    setProviderId(chat.providerId);
    setModel(chat.model);
  }, [chat.id, chat.providerId, chat.model]);

  const current = providers?.find((p) => p.id === chat.providerId) ?? providers?.[0] ?? null;
  const label =
    providers !== null && providers.length === 0
      ? t("providers.kindDemo")
      : `${chat.model || current?.defaultModel || t("chat.defaultModel")}${current ? ` · ${current.name}` : ""}`;

  const openPicker = () => setOpen(!open);

  const save = () =>
    void saving.run(async () => {
      await api.setChatModel(chat.id, providerId, model.trim());
      setOpen(false);
      onChanged();
    });

  return (
    <div class="popover-anchor model-picker" ref={ref}>
      <button type="button" class="link-btn muted small" aria-expanded={open} title={`${label} — ${t("chat.modelTitle")}`} onClick={openPicker}>
        {label} ▾
      </button>
      {open ? (
        <div class="popover popover--left" role="dialog" aria-label={t("chat.modelTitle")}>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              save();
            }}
          >
            <div class="popover-title">{t("chat.modelTitle")}</div>
            {error ? <p class="inline-error">{error}</p> : null}
            {!providers && !error ? <p class="muted">{t("common.loading")}</p> : null}
            {providers ? (
              <>
                <ModelFields
                  providers={providers}
                  providerId={providerId}
                  model={model}
                  listId={`models-${chat.id}`}
                  defaultName={providers[0]?.name ?? t("providers.kindDemo")}
                  onProvider={(id) => {
                    setProviderId(id);
                    setModel("");
                  }}
                  onModel={setModel}
                />
                <div class="row">
                  <button type="submit" class="btn btn--primary btn--small">
                    {t("common.save")}
                  </button>
                </div>
              </>
            ) : null}
          </form>
        </div>
      ) : null}
    </div>
  );
}

/** A header button that opens and closes its popover (Prompt, Tools, Export). */
function PopoverToggle(props: {
  open: boolean;
  onToggle: () => void;
  icon: string;
  label: string;
  title: string;
  role?: string;
  children?: ComponentChildren;
}) {
  return (
    <button
      type="button"
      class={`btn btn--ghost${props.open ? " is-pressed" : ""}`}
      aria-expanded={props.open}
      title={props.title}
      onClick={props.onToggle}
      data-role={props.role}
    >
      <Icon name={props.icon} /> <span class="btn-label">{props.label}</span>
      {props.children}
    </button>
  );
}

/** The chat's system prompt, temperature and longest answer (F-58), in a popover in the header. */
function PromptPopover({ chat, onChanged }: { chat: ChatRow; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, () => setOpen(false), ref);
  const [prompt, setPrompt] = useState(chat.systemPrompt);
  const [fields, setFields] = useState<ParamsText>(paramsText(chat.params));
  const { error, busy, run, setError } = useAction();
  useEffect(() => {
    if (!open) return;
    setPrompt(chat.systemPrompt);
    setFields(paramsText(chat.params));
    setError(null);
  }, [open, chat.id]);
  const custom = chat.systemPrompt.trim() !== "" || chat.params.temperature != null || chat.params.maxTokens != null;

  const save = async () => {
    const read = readParams(fields);
    if ("error" in read) {
      setError(t(read.error));
      return;
    }
    if (
      await run(async () => {
        await api.setChatPrompt(chat.id, prompt, read.params);
        onChanged();
      })
    ) {
      setOpen(false);
    }
  };

  return (
    <div class="popover-anchor" ref={ref}>
      <PopoverToggle
        open={open}
        onToggle={() => setOpen(!open)}
        icon="pencil"
        label={t("chat.prompt")}
        title={t("chat.promptTitle")}
        role="chat-prompt"
      >
        {custom ? <span class="dot dot--accent" aria-label={t("chat.promptCustom")} /> : null}
      </PopoverToggle>
      {open ? (
        <form
          class="popover popover--wide"
          aria-label={t("chat.promptTitle")}
          data-role="chat-prompt-form"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <div class="popover-title">{t("chat.promptTitle")}</div>
          <label class="field">
            <span>{t("chat.systemPrompt")}</span>
            <textarea
              rows={5}
              value={prompt}
              placeholder={t("chat.systemPromptPlaceholder")}
              onInput={(e) => setPrompt(e.currentTarget.value)}
              data-role="system-prompt"
            />
          </label>
          <div class="form-grid form-grid--tight">
            <ParamsFields value={fields} onChange={setFields} />
          </div>
          <small class="muted">{t("chat.promptHint")}</small>
          {error ? <p class="inline-error">{error}</p> : null}
          <div class="row row--end">
            <button type="button" class="btn btn--ghost" onClick={() => setOpen(false)}>
              {t("common.cancel")}
            </button>
            <button type="submit" class="btn btn--primary" disabled={busy}>
              {t("common.save")}
            </button>
          </div>
        </form>
      ) : null}
    </div>
  );
}

function ToolsPopover({ chat, onChanged }: { chat: ChatRow; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, () => setOpen(false), ref);
  const overrides = useRef<Record<string, boolean>>({});
  // Read each time the popover opens: the tools change with settings and MCP servers.
  const loaded = useLoad(open ? () => api.chatToolGroups(chat.id) : null, [open, chat.id]);
  const groups = loaded.data;
  const saving = useAction();
  const error = loaded.error ?? saving.error;

  useEffect(() => {
    overrides.current = { ...chat.toolOverrides.groups };
  }, [chat.id, chat.toolOverrides]);

  const setEnabled = (name: string, enabled: boolean | null) =>
    void saving.run(async () => {
      if (enabled === null) delete overrides.current[name];
      else overrides.current[name] = enabled;
      await api.setChatGroupEnabled(chat.id, name, enabled);
      await loaded.reload();
    });

  return (
    <div class="popover-anchor" ref={ref}>
      <PopoverToggle open={open} onToggle={() => setOpen(!open)} icon="tools" label={t("chat.tools")} title={t("chat.toolsTitle")} />
      {open ? (
        <div class="popover" role="dialog" aria-label={t("chat.toolsTitle")}>
          <div class="popover-title">{t("chat.toolsTitle")}</div>
          <p class="muted small">{t("chat.toolsHint")}</p>
          {error ? <p class="inline-error">{error}</p> : null}
          {!groups && !error ? <p class="muted">{t("common.loading")}</p> : null}
          {groups?.map((g) => (
            <div class="popover-row" key={g.name}>
              <label class="switch-row">
                <input type="checkbox" class="switch" checked={g.enabled} onChange={(e) => setEnabled(g.name, e.currentTarget.checked)} />
                <span>
                  <strong>{g.title}</strong>
                  <small class="muted block">
                    {g.tools.length} · {g.description}
                  </small>
                </span>
              </label>
              {g.name in overrides.current ? (
                <button type="button" class="link-btn" onClick={() => setEnabled(g.name, null)}>
                  {t("chat.toolsInherit")}
                </button>
              ) : null}
            </div>
          ))}
          <SandboxSettings chat={chat} onChanged={onChanged} />
        </div>
      ) : null}
    </div>
  );
}

function ExportMenu({ chat }: { chat: ChatRow }) {
  const [open, setOpen] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const { error, run: runAction } = useAction();
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, () => setOpen(false), ref);
  useEffect(() => {
    if (saved === null) return;
    const timer = setTimeout(() => setSaved(null), 6000);
    return () => clearTimeout(timer);
  }, [saved]);
  const run = (format: ExportFormat) => {
    setOpen(false);
    setSaved(null);
    return runAction(async () => {
      const path = await api.saveChatExport(chat.id, format);
      if (path !== null) setSaved(path);
    });
  };
  return (
    <div class="popover-anchor" ref={ref}>
      <PopoverToggle open={open} onToggle={() => setOpen(!open)} icon="download" label={t("chat.export")} title={error ?? t("chat.export")}>
        {error ? <span class="dot dot--error" /> : null}
      </PopoverToggle>
      {saved !== null || error !== null ? (
        <div class={`export-status ${error !== null ? "inline-error" : "ok-text"}`} role="status" data-role="export-status">
          {error !== null ? t("chat.exportFailed", { message: error }) : t("chat.exportSaved", { path: saved ?? "" })}
        </div>
      ) : null}
      {open ? (
        <div class="popover popover--menu" role="menu">
          <button type="button" role="menuitem" class="menu-item" onClick={() => void run("markdown")}>
            {t("chat.exportMarkdown")}
          </button>
          <button type="button" role="menuitem" class="menu-item" onClick={() => void run("json")}>
            {t("chat.exportJson")}
          </button>
        </div>
      ) : null}
    </div>
  );
}
