import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import * as api from "../api";
import { alwaysAllowDecision, executionKeyDecision, parseEditedArguments, resultKeyDecision } from "../approvals";
import { askReasonText, errorMessage, formatBytes, prettyJson } from "../format";
import { t } from "../i18n";
import { OUTPUT_LIMITS, reveal, revealDiff, type Revealed, type RevealedDiff } from "../reveal";
import { everyCallChoice, everyCallWords, ruleWords } from "../ruleWords";
import { Attachments } from "./Attachments";
import { FlaggedArgumentsView } from "./FlaggedArguments";
import { EndorseButtons, GuardNoteView } from "./Guard";
import { Icon } from "./icons";
import { useLoad } from "./hooks";
import { HiddenCharsWarning, PayloadPane, PhraseView, RevealedText } from "./Payload";
import { ApprovalHead, keyContext, RevealedLine, typingElsewhere, useDecide } from "./ApprovalParts";
import { PlanCard } from "./PlanCard";
import { SandboxLine } from "./Sandbox";
import { ToolChangeView } from "./ToolChange";
import type {
  ApprovalPreview,
  ChatId,
  ExecutionDecision,
  ExecutionRequest,
  PendingApproval,
  ResultDecision,
  ResultRequest,
  RuleGrant,
  RuleScopeChoice,
} from "../types";

export interface Props {
  approval: PendingApproval;
  /** First in the queue: takes keyboard focus. */
  active: boolean;
  position: number;
  total: number;
  onDecided: (id: string) => void;
}

export function ApprovalCard(props: Props) {
  const request = props.approval.request;
  if (request.kind === "result") return <ResultCard {...props} request={request} />;
  // A task's plan (F-98) has a card of its own: a checklist, not arguments.
  if (request.reason.type === "plan") return <PlanCard {...props} shown={request.reason.shown} />;
  return <ExecutionCard {...props} request={request} />;
}

/** The command or diff an execution card shows, revealed (see reveal.ts). */
type RevealedPreview =
  | { type: "command"; command: Revealed; cwd: string; hidden: number }
  | { type: "diff"; path: string; diff: RevealedDiff; hidden: number }
  | { type: "largeWrite"; path: string; bytesBefore: number; bytesAfter: number; hidden: number };

function revealPreview(p: ApprovalPreview): RevealedPreview {
  switch (p.type) {
    case "command": {
      const command = reveal(p.command);
      return { type: "command", command, cwd: p.cwd, hidden: command.hidden + reveal(p.cwd).hidden };
    }
    case "diff": {
      const diff = revealDiff(p.diff);
      return { type: "diff", path: p.path, diff, hidden: diff.hidden + reveal(p.path).hidden };
    }
    case "largeWrite":
      return { type: "largeWrite", path: p.path, bytesBefore: p.bytesBefore, bytesAfter: p.bytesAfter, hidden: reveal(p.path).hidden };
  }
}

function Preview({ preview: p }: { preview: RevealedPreview | null }) {
  if (!p) return null;
  switch (p.type) {
    case "command":
      return (
        <div class="approval-preview">
          <div class="section-label">
            {t("approval.command")}{" "}
            <span class="muted">
              <RevealedLine text={t("approval.cwd", { cwd: p.cwd })} />
            </span>
          </div>
          <PayloadPane class="code-pane--command" lines={p.command.lines}>
            <span class="prompt">$ </span>
            <RevealedText segments={p.command.segments} />
          </PayloadPane>
        </div>
      );
    case "diff":
      return (
        <div class="approval-preview">
          <div class="section-label">
            <RevealedLine text={t("approval.diff", { path: p.path })} />
          </div>
          <PayloadPane class="diff" lines={p.diff.lines.length}>
            {p.diff.lines.map((l, i) => (
              <span key={i} class={`diff-${l.kind}`}>
                {l.prefix}
                <RevealedText segments={l.body.segments} />
                {"\n"}
              </span>
            ))}
          </PayloadPane>
        </div>
      );
    case "largeWrite":
      return (
        <div class="approval-preview">
          <p class="large-write" data-role="large-write">
            <RevealedLine text={t("approval.largeWrite", { path: p.path, before: formatBytes(p.bytesBefore), after: formatBytes(p.bytesAfter) })} />
          </p>
        </div>
      );
  }
}

/**
 * The "Always allow" panel: where the rule applies, and what it allows — calls matching a
 * pattern (the default, said in plain words as it is typed), or every call of the tool, chosen
 * explicitly and with a warning. An empty pattern cannot create a rule.
 */
/** A ref that takes the keyboard focus when its element first appears: a panel the user just
 * opened (edit arguments, always allow, edit result) is where their next keys belong, and it sits
 * above the button that opened it, so Tab alone would never reach it. */
function useFocusOnOpen<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return ref;
}

/** A text editor that opens focused (see `useFocusOnOpen`). */
function OpenedEditor(props: { rows: number; value: string; role: string; onText: (text: string) => void }) {
  const ref = useFocusOnOpen<HTMLTextAreaElement>();
  return (
    <textarea
      ref={ref}
      class="mono json-editor"
      rows={props.rows}
      value={props.value}
      spellcheck={false}
      onInput={(e) => props.onText(e.currentTarget.value)}
      data-role={props.role}
    />
  );
}

/**
 * The editor both cards open to change what goes on (the call's arguments, the result's text),
 * with Apply and Cancel: one place for its focus and keys.
 */
function EditPanel(props: {
  hint?: string;
  rows: number;
  value: string;
  role: string;
  onText: (text: string) => void;
  error?: string | null;
  applyLabel: string;
  busy: boolean;
  onApply: () => void;
  onCancel: () => void;
}) {
  return (
    <div class="approval-panel" data-role={`edit-${props.role}`}>
      {props.hint ? <small class="muted">{props.hint}</small> : null}
      <OpenedEditor rows={props.rows} value={props.value} role={props.role} onText={props.onText} />
      {props.error ? <p class="inline-error">{props.error}</p> : null}
      <div class="row">
        <button type="button" class="btn btn--primary" disabled={props.busy} onClick={props.onApply}>
          {props.applyLabel}
        </button>
        <button type="button" class="btn" onClick={props.onCancel}>
          {t("common.cancel")}
        </button>
      </div>
    </div>
  );
}

/** A way to refuse from the deny row: its words, its key, and what it sends with the reason. */
interface Refusal {
  label: string;
  /** The key that does it from the card (shown as a hint). */
  key?: string;
  onRefuse: (reason: string | null) => void;
}

/**
 * The row both cards end with: why (optional, sent to the model) and the buttons that refuse.
 * The card's key handler reads the same `reason` (Esc refuses with it). The first refusal is the
 * plain one; the others are outlined.
 */
function DenyRow(props: { placeholder: string; reason: string; onReason: (reason: string) => void; busy: boolean; refusals: Refusal[] }) {
  const reason = props.reason.trim() ? props.reason.trim() : null;
  return (
    <div class="approval-actions approval-deny">
      <input
        class="reason-input"
        placeholder={props.placeholder}
        value={props.reason}
        onInput={(e) => props.onReason(e.currentTarget.value)}
        data-role="reason"
      />
      {props.refusals.map((r, i) => (
        <button
          key={r.label}
          type="button"
          class={`btn ${i === 0 ? "btn--danger" : "btn--danger-outline"}`}
          disabled={props.busy}
          onClick={() => r.onRefuse(reason)}
        >
          {r.label}
          {r.key ? (
            <>
              {" "}
              <kbd>{r.key}</kbd>
            </>
          ) : null}
        </button>
      ))}
    </div>
  );
}

/** Which past calls of the tool-chain log the rule being written would have allowed (F-85). */
function RuleCoverageView(props: { chat: ChatId; tool: string; pattern: string | null; scope: RuleScopeChoice }) {
  const { chat, tool, pattern, scope } = props;
  const coverage = useLoad(
    () => api.ruleCoverage(tool, pattern, scope === "thisChat" ? { type: "chat", chat } : { type: "global" }),
    [chat, tool, pattern, scope],
    { keepOnChange: true },
  );
  const c = coverage.data;
  if (!c) return null;
  return (
    <div class="rule-coverage" data-role="rule-coverage" aria-live="polite">
      <div class="section-label">{t("coverage.title")}</div>
      {c.examined === 0 ? (
        <p class="muted">{t("coverage.never", { tool })}</p>
      ) : c.coveredCount === 0 ? (
        <p class="muted">{t("coverage.none", { n: c.examined, tool })}</p>
      ) : (
        <>
          <p>{t("coverage.some", { count: c.coveredCount, n: c.examined, tool })}</p>
          <ul class="coverage-list">
            {c.covered.map((call) => (
              <li key={`${call.chat}-${call.seq}`} class="mono" data-covered={call.seq}>
                <RevealedLine text={call.args} />
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function AlwaysAllowPanel(props: {
  id: string;
  chat: ChatId;
  tool: string;
  request: ExecutionRequest;
  busy: boolean;
  onCreate: (decision: ExecutionDecision) => void;
  onCancel: () => void;
}) {
  const { id, tool, request, busy } = props;
  const [scope, setScope] = useState<RuleScopeChoice>("thisChat");
  const [grant, setGrant] = useState<RuleGrant["type"]>("matching");
  const [pattern, setPattern] = useState(request.suggestedPattern ?? "");
  const words = ruleWords(request.ruleSubject, tool, pattern, scope);
  const decision = alwaysAllowDecision(scope, grant, pattern);
  const wordsId = `rule-words-${id}`;
  const first = useFocusOnOpen<HTMLInputElement>();
  return (
    <div class="approval-panel">
      <fieldset class="scope-choice">
        <legend>{t("approval.scopeQuestion")}</legend>
        <label>
          <input ref={first} type="radio" name={`scope-${id}`} checked={scope === "thisChat"} onChange={() => setScope("thisChat")} />{" "}
          {t("approval.scopeThisChat")}
        </label>
        <label>
          <input type="radio" name={`scope-${id}`} checked={scope === "allChats"} onChange={() => setScope("allChats")} />{" "}
          {t("approval.scopeAllChats")}
        </label>
      </fieldset>
      <fieldset class="grant-choice">
        <legend>{t("approval.grantQuestion")}</legend>
        <label>
          <input type="radio" name={`grant-${id}`} checked={grant === "matching"} onChange={() => setGrant("matching")} data-role="grant-matching" />{" "}
          {t("approval.grantMatching")}
        </label>
        {grant === "matching" ? (
          <div class="grant-detail">
            <label class="field">
              <span>{t("approval.pattern")}</span>
              <input
                class="mono"
                value={pattern}
                onInput={(e) => setPattern(e.currentTarget.value)}
                data-role="pattern"
                aria-describedby={wordsId}
                aria-invalid={words.status !== "ok"}
              />
            </label>
            <p id={wordsId} class={`rule-words rule-words--${words.status}`} aria-live="polite" data-role="rule-words">
              <PhraseView phrase={words.sentence} />
            </p>
          </div>
        ) : null}
        <label>
          <input type="radio" name={`grant-${id}`} checked={grant === "everyCall"} onChange={() => setGrant("everyCall")} data-role="grant-every" />{" "}
          <PhraseView phrase={everyCallChoice(tool)} />
        </label>
        {grant === "everyCall" ? (
          <p class="rule-warning" data-role="every-call-warning">
            <PhraseView phrase={everyCallWords(tool, scope)} />
          </p>
        ) : null}
      </fieldset>
      {request.destructive ? (
        <p class="rule-warning rule-warning--destructive" data-role="destructive-warning">
          {t("approval.destructiveWarning", { tool })}
        </p>
      ) : null}
      {grant === "everyCall" || pattern.trim() ? (
        <RuleCoverageView chat={props.chat} tool={tool} pattern={grant === "everyCall" ? null : pattern.trim()} scope={scope} />
      ) : null}
      <div class="row">
        <button type="button" class="btn btn--primary" disabled={busy || !decision} onClick={() => decision && props.onCreate(decision)}>
          {t("approval.createRule")}
        </button>
        <button type="button" class="btn" onClick={props.onCancel}>
          {t("common.cancel")}
        </button>
      </div>
    </div>
  );
}

function ExecutionCard({ approval, request, active, position, total, onDecided }: Props & { request: ExecutionRequest }) {
  const { busy, error, send } = useDecide(approval.chat, approval.id, onDecided);
  const [reason, setReason] = useState("");
  const [mode, setMode] = useState<"none" | "always" | "edit">("none");
  const [argsText, setArgsText] = useState(() => prettyJson(request.arguments));
  const [editError, setEditError] = useState<string | null>(null);
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!active || !root.current || typingElsewhere(root.current)) return;
    root.current.focus({ preventScroll: false });
  }, [active]);

  const execution = (decision: ExecutionDecision) => void send({ kind: "execution", decision });

  // What the user decides on, every character visible (display only; decisions carry the original).
  const args = useMemo(() => reveal(prettyJson(request.arguments)), [request.arguments]);
  const preview = useMemo(() => (request.preview ? revealPreview(request.preview) : null), [request.preview]);
  const hidden = args.hidden + (preview?.hidden ?? 0) + reveal(approval.tool).hidden;

  const onKeyDown = (e: KeyboardEvent) => {
    // An IME is composing (Chinese input in the reason field): Enter and Esc are the IME's.
    if (e.isComposing) return;
    const decision = executionKeyDecision(e.key, keyContext(e, reason));
    if (!decision) return;
    e.preventDefault();
    e.stopPropagation();
    execution(decision);
  };

  const applyEdit = () => {
    const parsed = parseEditedArguments(argsText);
    if (!parsed.ok) {
      setEditError(parsed.error);
      return;
    }
    setEditError(null);
    execution({ type: "editAndAllow", arguments: parsed.value });
  };

  return (
    <div
      ref={root}
      class={`approval-card${active ? " is-active" : ""}`}
      tabIndex={0}
      role="group"
      aria-label={t("approval.title", { tool: approval.tool })}
      data-approval={approval.id}
      onKeyDown={onKeyDown}
    >
      <ApprovalHead title={t("approval.title", { tool: approval.tool })} group={approval.group} position={position} total={total}>
        <span class="tag tag--policy">{t("approval.policy", { policy: request.policy })}</span>
      </ApprovalHead>
      <p class="approval-reason">
        <span class="muted">{t("approval.why")}: </span>
        {askReasonText(request.reason)}
      </p>
      {request.guard ? <GuardNoteView note={request.guard} args={request.arguments} /> : null}
      {request.toolChange ? <ToolChangeView change={request.toolChange} /> : null}
      <FlaggedArgumentsView args={request.arguments} flagged={request.flagged} />
      <HiddenCharsWarning count={hidden} result={false} />
      <Preview preview={preview} />
      {request.sandbox ? <SandboxLine report={request.sandbox} stage="approval" /> : null}
      <div class="section-label">{t("tool.args")}</div>
      <PayloadPane lines={args.lines}>
        <RevealedText segments={args.segments} />
      </PayloadPane>

      {mode === "always" ? (
        <AlwaysAllowPanel
          id={approval.id}
          chat={approval.chat}
          tool={approval.tool}
          request={request}
          busy={busy}
          onCreate={execution}
          onCancel={() => setMode("none")}
        />
      ) : null}

      {mode === "edit" ? (
        <EditPanel
          hint={t("approval.editHint")}
          rows={Math.min(16, argsText.split("\n").length + 1)}
          value={argsText}
          role="args"
          onText={setArgsText}
          error={editError}
          applyLabel={t("approval.applyEdit")}
          busy={busy}
          onApply={applyEdit}
          onCancel={() => setMode("none")}
        />
      ) : null}

      {error ? (
        <p class="inline-error" role="alert">
          {error}
        </p>
      ) : null}

      <div class="approval-actions">
        <button type="button" class="btn btn--primary" disabled={busy} onClick={() => execution({ type: "allowOnce" })}>
          {t("approval.allowOnce")} <kbd>Enter</kbd>
        </button>
        <button type="button" class="btn" disabled={busy} onClick={() => execution({ type: "allowForChat" })}>
          {t("approval.allowForChat")} <kbd>A</kbd>
        </button>
        <button
          type="button"
          class={`btn${mode === "always" ? " is-pressed" : ""}`}
          disabled={busy}
          onClick={() => setMode(mode === "always" ? "none" : "always")}
        >
          {t("approval.alwaysAllow")}
        </button>
        <button
          type="button"
          class={`btn${mode === "edit" ? " is-pressed" : ""}`}
          disabled={busy}
          onClick={() => setMode(mode === "edit" ? "none" : "edit")}
        >
          {t("approval.edit")}
        </button>
      </div>
      {request.guard ? (
        <EndorseButtons note={request.guard} busy={busy} onEndorse={(sources) => execution({ type: "endorseAndAllow", sources })} />
      ) : null}
      <DenyRow
        placeholder={t("approval.reasonPlaceholder")}
        reason={reason}
        onReason={setReason}
        busy={busy}
        refusals={[
          { label: t("approval.deny"), key: "Esc", onRefuse: (why) => execution({ type: "deny", reason: why }) },
          { label: t("approval.denyAndStop"), onRefuse: (why) => execution({ type: "denyAndStop", reason: why }) },
        ]}
      />
    </div>
  );
}

function ResultCard({ approval, request, active, position, total, onDecided }: Props & { request: ResultRequest }) {
  const { busy, error, send } = useDecide(approval.chat, approval.id, onDecided);
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(request.textForModel);
  const [reason, setReason] = useState("");
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (active && root.current && !typingElsewhere(root.current)) root.current.focus();
  }, [active]);

  const result = (decision: ResultDecision) => void send({ kind: "result", decision });

  const shownText = useMemo(() => reveal(request.textForModel, OUTPUT_LIMITS), [request.textForModel]);
  const fullOutput = useMemo(
    () => (request.fullOutput !== request.textForModel ? reveal(request.fullOutput, OUTPUT_LIMITS) : null),
    [request.fullOutput, request.textForModel],
  );
  const hidden = shownText.hidden + (fullOutput?.hidden ?? 0) + reveal(approval.tool).hidden;

  const onKeyDown = (e: KeyboardEvent) => {
    // An IME is composing (Chinese input in the reason field): Enter and Esc are the IME's.
    if (e.isComposing) return;
    const decision = resultKeyDecision(e.key, keyContext(e, reason));
    if (!decision) return;
    e.preventDefault();
    e.stopPropagation();
    result(decision);
  };

  return (
    <div
      ref={root}
      class={`approval-card approval-card--result${active ? " is-active" : ""}`}
      tabIndex={0}
      role="group"
      aria-label={t("approval.resultTitle", { tool: approval.tool })}
      data-approval={approval.id}
      onKeyDown={onKeyDown}
    >
      <ApprovalHead title={t("approval.resultTitle", { tool: approval.tool })} group={approval.group} position={position} total={total}>
        <span class="tag">{t("approval.status", { status: request.status })}</span>
      </ApprovalHead>
      <HiddenCharsWarning count={hidden} result />
      <div class="section-label">{t("approval.textForModel")}</div>
      {editing ? (
        <EditPanel
          rows={10}
          value={text}
          role="result"
          onText={setText}
          applyLabel={t("approval.applyResult")}
          busy={busy}
          onApply={() => result({ type: "editAndApprove", text })}
          onCancel={() => setEditing(false)}
        />
      ) : (
        <PayloadPane lines={shownText.lines}>
          <RevealedText segments={shownText.segments} />
        </PayloadPane>
      )}
      {request.images?.length ? (
        <div class="approval-images" data-role="result-images">
          <div class="section-label">{t("approval.images")}</div>
          <Attachments files={request.images} label={t("approval.images")} />
        </div>
      ) : null}
      {fullOutput ? (
        <details class="full-output">
          <summary>{t("approval.fullOutput")}</summary>
          <PayloadPane lines={fullOutput.lines}>
            <RevealedText segments={fullOutput.segments} />
          </PayloadPane>
        </details>
      ) : null}
      {error ? (
        <p class="inline-error" role="alert">
          {error}
        </p>
      ) : null}
      {editing ? null : (
        <div class="approval-actions">
          <button type="button" class="btn btn--primary" disabled={busy} onClick={() => result({ type: "approve" })}>
            {t("approval.approve")} <kbd>Enter</kbd>
          </button>
          <button type="button" class="btn" disabled={busy} onClick={() => setEditing(true)}>
            {t("approval.editResult")}
          </button>
        </div>
      )}
      <DenyRow
        placeholder={t("approval.rejectPlaceholder")}
        reason={reason}
        onReason={setReason}
        busy={busy}
        refusals={[{ label: t("approval.reject"), key: "Esc", onRefuse: (why) => result({ type: "reject", reason: why }) }]}
      />
    </div>
  );
}

/** An ask_user question: choice buttons and a free-text answer. */
export function QuestionCard({
  chat,
  id,
  question,
  choices,
  onAnswered,
}: {
  chat: ChatId;
  id: string;
  question: string;
  choices: string[];
  onAnswered: (id: string) => void;
}) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const answer = async (value: string) => {
    if (busy || !value.trim()) return;
    setBusy(true);
    setError(null);
    try {
      await api.answerQuestion(chat, id, value);
      onAnswered(id);
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  };
  return (
    <div class="approval-card question-card is-active" data-question={id}>
      <div class="approval-head">
        <Icon name="question" class="approval-icon" />
        <strong>{t("question.title")}</strong>
      </div>
      <p class="question-text">{question}</p>
      {choices.length ? (
        <div class="approval-actions">
          {choices.map((c) => (
            <button key={c} type="button" class="btn" disabled={busy} onClick={() => void answer(c)}>
              {c}
            </button>
          ))}
        </div>
      ) : null}
      <form
        class="approval-actions"
        onSubmit={(e) => {
          e.preventDefault();
          void answer(text);
        }}
      >
        <input class="reason-input" placeholder={t("question.placeholder")} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit" class="btn btn--primary" disabled={busy || !text.trim()}>
          {t("question.send")}
        </button>
      </form>
      {error ? <p class="inline-error">{error}</p> : null}
    </div>
  );
}
