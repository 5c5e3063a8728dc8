/** The approval card of a result waiting to reach the model. */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { resultKeyDecision } from "../approvals";
import { t } from "../i18n";
import { OUTPUT_LIMITS, reveal } from "../reveal";
import type { ResultDecision, ResultRequest } from "../types";
import { DenyRow } from "./ApprovalDeny";
import { EditPanel } from "./ApprovalEditor";
import { ApprovalHead, type ApprovalCardProps, decisionKeys, typingElsewhere, useDecide } from "./ApprovalParts";
import { Attachments } from "./Attachments";
import { HiddenCharsWarning, PayloadPane, RevealedText } from "./Payload";

/** The card for a tool's result waiting to reach the model: what it says, and approve, edit or reject. */
export function ResultCard({ approval, request, active, position, total, onDecided }: ApprovalCardProps & { request: ResultRequest }) {
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

  const onKeyDown = decisionKeys(resultKeyDecision, reason, result);

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
