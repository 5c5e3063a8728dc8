/** The approval card of a call waiting to run. */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { executionKeyDecision, parseEditedArguments } from "../approvals";
import { askReasonText, prettyJson } from "../format";
import { t } from "../i18n";
import { reveal } from "../reveal";
import type { ExecutionDecision, ExecutionRequest } from "../types";
import { AlwaysAllowPanel } from "./AlwaysAllow";
import { DenyRow } from "./ApprovalDeny";
import { EditPanel } from "./ApprovalEditor";
import { ApprovalHead, type ApprovalCardProps, decisionKeys, typingElsewhere, useDecide } from "./ApprovalParts";
import { Preview, revealPreview } from "./ApprovalPreview";
import { FlaggedArgumentsView } from "./FlaggedArguments";
import { EndorseButtons, GuardNoteView } from "./Guard";
import { HiddenCharsWarning, PayloadPane, RevealedText } from "./Payload";
import { SandboxLine } from "./Sandbox";
import { ToolChangeView } from "./ToolChange";

/**
 * The card for a call waiting to run: why it is asked, what it would do, and the ways to decide —
 * allow once or for the chat, always allow (a rule), edit the arguments, endorse, or deny.
 */
export function ExecutionCard({ approval, request, active, position, total, onDecided }: ApprovalCardProps & { request: ExecutionRequest }) {
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

  const onKeyDown = decisionKeys(executionKeyDecision, reason, execution);

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
