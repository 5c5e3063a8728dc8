/** The timeline of a chat's messages: answers, thinking, tool cards and approvals in order, and the user's messages with their edits, versions and regeneration. */
import type { ComponentChildren, RefObject } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { formatDuration, formatTokens } from "../format";
import { type Key, t } from "../i18n";
import * as api from "../api";
import * as session from "../session";
import { offerFiles } from "../drafts";
import { carryOver } from "../summary";
import { callsFor, type ChatState, PENDING_USER_ID, showsView, type TimelineMessage } from "../timeline";
import { forgetTyping } from "../typing";
import type { ChatId, ChatRow, FailureKind, PendingApproval, ProviderConfig } from "../types";
import { ApprovalCard, QuestionCard } from "./ApprovalCard";
import { ElicitationCard } from "./ElicitationCard";
import { Attachments } from "./Attachments";
import { type Stick, useAutoGrow, useDismiss } from "./hooks";
import { Icon } from "./icons";
import { McpView } from "./McpView";
import { ToolCard } from "./ToolCard";
import { VIRTUALIZE_FROM, VirtualList } from "./VirtualList";
import { CopyMessage, Markdown } from "./Markdown";
import { ModelFields } from "./ModelFields";

export function Timeline({
  state,
  chat,
  providers,
  scroller,
  stick,
  actions,
}: {
  state: ChatState;
  chat: ChatRow;
  providers: ProviderConfig[] | null;
  scroller: RefObject<HTMLDivElement | null>;
  stick: Stick;
  actions: FailureActions;
}) {
  const total = state.approvals.length;
  const queueIndex = new Map(state.approvals.map((a, i) => [a.id, i]));
  const approvalCard = (a: PendingApproval) => {
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
    if (q.elicitation) {
      return <ElicitationCard key={q.id} elicitation={q.elicitation} onAnswered={(id) => session.resolveLocally(state.chat, id)} />;
    }
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
            {calls
              .filter((c) => c.viewOf === null)
              .map((c) => (
                <div key={c.seq}>
                  <ToolCard
                    call={c}
                    onRerun={state.running ? undefined : (command) => void session.rerunUnsandboxed(state.chat, c.seq, command)}
                    onAttach={(files) => offerFiles(state.chat, files)}
                    onStop={() => void api.stopCall(state.chat, c.seq)}
                  />
                  {state.approvals.filter((a) => a.seq === c.seq).map(approvalCard)}
                  {state.questions.filter((q) => q.seq === c.seq).map(questionCard)}
                  {showsView(c) ? <McpView chat={state.chat} call={c} /> : null}
                  {/* What the view asked for: its calls, each with its card and questions. */}
                  {calls
                    .filter((v) => v.viewOf === c.seq)
                    .map((v) => (
                      <div key={v.seq} class="view-call" data-role="view-call">
                        <ToolCard call={v} compact fromView={c.view?.server ?? ""} />
                        {state.approvals.filter((a) => a.seq === v.seq).map(approvalCard)}
                        {state.questions.filter((q) => q.seq === v.seq).map(questionCard)}
                      </div>
                    ))}
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
  // A short chat is drawn whole, in the same list: crossing the length does not draw anything
  // again (a view would load again and lose its state).
  const kept = keptAnswers(state);
  const items = (
    <VirtualList
      items={state.messages.map((m, i) => ({ key: m.id, render: () => renderMessage(m, i), keep: kept.has(m.id) }))}
      scroller={scroller}
      stick={stick}
      windowed={state.messages.length >= VIRTUALIZE_FROM || state.earlier !== null}
      head={state.earlier !== null ? <EarlierMessages chat={state.chat} failed={state.alert?.action === "reload"} /> : null}
    />
  );

  // What asks about a call drawn under an answer is drawn there (the list draws its items after
  // this runs); the rest at the end.
  const underAnswers = callsUnderAnswers(state);
  const rest = [
    ...state.approvals.filter((a) => !underAnswers.has(a.seq)).map(approvalCard),
    ...state.questions.filter((q) => !underAnswers.has(q.seq)).map(questionCard),
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
      {state.error && !state.running ? <TurnError state={state} chat={chat} actions={actions} /> : null}
    </>
  );
}

/**
 * The calls drawn under the answers, each with what asks about it: a call of an answer in the
 * chat, unless a view made it and its view's call is not drawn there.
 */
export function callsUnderAnswers(state: ChatState): Set<number> {
  const answers = new Set(state.messages.filter((m) => m.role === "assistant").map((m) => m.id));
  const top = new Map<number, number | null>();
  for (const c of state.calls) if (c.viewOf === null) top.set(c.seq, c.messageId);
  const seqs = new Set<number>();
  for (const c of state.calls) {
    if (c.messageId === null || !answers.has(c.messageId)) continue;
    if (c.viewOf === null || top.get(c.viewOf) === c.messageId) seqs.add(c.seq);
  }
  return seqs;
}

/**
 * The answers that stay drawn once drawn when the chat scrolls away and back: those showing an
 * MCP view (it keeps what the user did in it) and those with a card waiting for the user (it
 * keeps what the user typed into it, and the keyboard). One pass over the calls: a long chat
 * asks this at every render.
 */
export function keptAnswers(state: ChatState): Set<number> {
  const asking = new Set<number>(state.approvals.map((a) => a.seq));
  for (const q of state.questions) asking.add(q.seq);
  const kept = new Set<number>();
  for (const c of state.calls) {
    if (c.messageId !== null && (showsView(c) || asking.has(c.seq))) kept.add(c.messageId);
  }
  return kept;
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

/** What the window does about a failed turn, beside Retry. */
export interface FailureActions {
  /** Opens Settings → Providers (a refused key, a provider not set up, one not reached). */
  onOpenProviders: () => void;
  /** Starts a new chat whose composer holds `text` (a conversation too long for the model). */
  onCarryOver: (text: string) => void;
}

/** The headline and the hint of each kind of failure, in the user's language. */
function failureWords(kind: FailureKind | null): { title: Key; hint: Key | null } {
  switch (kind) {
    case "auth":
      return { title: "failure.auth", hint: "failure.authHint" };
    case "setup":
      return { title: "failure.setup", hint: "failure.setupHint" };
    case "contextTooLong":
      return { title: "failure.contextTooLong", hint: "failure.contextHint" };
    case "rateLimited":
      return { title: "failure.rateLimited", hint: "failure.rateLimitedHint" };
    case "server":
      return { title: "failure.server", hint: null };
    case "network":
      return { title: "failure.network", hint: "failure.networkHint" };
    case "stalled":
      return { title: "failure.stalled", hint: null };
    case "incomplete":
      return { title: "failure.incomplete", hint: null };
    case "refused":
      return { title: "failure.refused", hint: null };
    case "storage":
      return { title: "failure.storage", hint: null };
    case "internal":
      return { title: "failure.internal", hint: "failure.internalHint" };
    case null:
      return { title: "chat.failed", hint: null };
  }
}

/**
 * Why the last turn failed, in the user's language by its kind, with what can fix it: the
 * provider's settings for a refused key, a new chat from a summary for a conversation too long
 * for the model, Retry where trying again may help. The provider's own words stay below.
 */
function TurnError({ state, chat, actions }: { state: ChatState; chat: ChatRow; actions: FailureActions }) {
  const [busy, setBusy] = useState(false);
  const error = state.error;
  if (!error) return null;
  const words = failureWords(error.kind);
  const toProviders = error.kind === "auth" || error.kind === "setup" || error.kind === "network";
  // The same request fails again until the key or the provider is fixed; then Retry helps.
  const retry = error.retryable || error.kind === "auth" || error.kind === "setup";
  return (
    <div class="notice notice--error" role="alert" data-failure={error.kind ?? "unknown"}>
      <div>
        <strong>{t(words.title)}</strong>
        {words.hint ? <div class="notice-hint">{t(words.hint)}</div> : null}
        <div class="notice-detail">{error.message || t("chat.failedUnknown")}</div>
      </div>
      <div class="notice-actions">
        {toProviders ? (
          <button type="button" class="btn" data-role="failure-providers" onClick={actions.onOpenProviders}>
            {t(error.kind === "auth" ? "failure.openProviders" : "failure.openSettings")}
          </button>
        ) : null}
        {error.kind === "contextTooLong" ? (
          <button type="button" class="btn" data-role="failure-carry-over" onClick={() => actions.onCarryOver(carryOver(chat.title, state.messages))}>
            {t("failure.carryOver")}
          </button>
        ) : null}
        {retry ? (
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
