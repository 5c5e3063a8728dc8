/**
 * The plan card (F-98): the task's plan as a short checklist, approved once. Enter approves what
 * is kept (as shown, or narrowed: a step unticked, a target removed, a shorter time); Esc
 * declines, and the task goes on call by call. The card only narrows; the backend refuses
 * anything else.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { executionKeyDecision } from "../approvals";
import { t } from "../i18n";
import { approveDecision, keepAll, type Kept, keptCount, timeChoices } from "../plan";
import type { ExecutionDecision, PendingApproval, PlanShown, PlanTargetMark } from "../types";
import { sourceText } from "../provenance";
import { unconfinedText } from "../format";
import { ApprovalHead, keyContext, RevealedLine, typingElsewhere, useDecide } from "./ApprovalParts";

interface Props {
  approval: PendingApproval;
  /** The plan, whether the chat had read untrusted content before it, and where each of its
   * targets was named. */
  shown: PlanShown;
  active: boolean;
  position: number;
  total: number;
  onDecided: (id: string) => void;
}

function timeLabel(minutes: number | null): string {
  return minutes === null ? t("plan.time.turn") : t("plan.time.minutes", { n: minutes });
}

/** Where a target was named: the user's own words, or the untrusted sources that named it. */
function TargetMark({ mark }: { mark: PlanTargetMark | undefined }) {
  if (!mark) return null;
  if (mark.sources.length > 0) {
    const from = mark.sources.map(sourceText).join(", ");
    return (
      <span class="plan-mark plan-mark--untrusted" title={t("plan.mark.untrusted", { from })}>
        {t("plan.mark.untrusted", { from })}
      </span>
    );
  }
  return mark.byUser ? <span class="plan-mark plan-mark--user">{t("plan.mark.user")}</span> : null;
}

export function PlanCard({ approval, shown, active, position, total, onDecided }: Props) {
  const { proposal, exposed } = shown;
  const markOf = (step: number, target: string) => shown.marks.find((m) => m.step === step && m.target === target);
  const { busy, error, send } = useDecide(approval.chat, approval.id, onDecided);
  const [kept, setKept] = useState<Kept>(() => keepAll(proposal));
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const card = root.current;
    if (!active || !card || typingElsewhere(card)) return;
    card.focus({ preventScroll: false });
    // A plan taller than the chat's view opens at its top — whether it came after the chat
    // read content from outside, and its first steps — not at its end, where following the
    // conversation would leave it.
    const view = card.closest<HTMLElement>(".chat-scroll");
    if (view && card.offsetHeight > view.clientHeight) card.scrollIntoView({ block: "start" });
  }, [active]);

  const execution = (decision: ExecutionDecision) => void send({ kind: "execution", decision });
  const approve = () => execution(keptCount(kept) === 0 ? { type: "deny", reason: null } : approveDecision(proposal, kept));
  const decline = () => execution({ type: "deny", reason: null });

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.isComposing) return;
    // Enter approves from the card and from its checkboxes and time box (whose own keys are
    // Space and the arrows); a focused button does what its label says.
    const target = e.target as HTMLElement | null;
    const choice = (target instanceof HTMLInputElement && target.type === "checkbox") || target instanceof HTMLSelectElement;
    const base = keyContext(e, "");
    const ctx = { ...base, onCard: e.target === e.currentTarget || choice, inTextField: base.inTextField && !choice };
    const decision = executionKeyDecision(e.key, ctx);
    if (!decision || decision.type === "allowForChat") return;
    e.preventDefault();
    e.stopPropagation();
    if (decision.type === "deny") decline();
    else approve();
  };

  const toggle = (i: number) => setKept((k) => ({ ...k, steps: k.steps.map((s, j) => (j === i ? { ...s, kept: !s.kept } : s)) }));
  const removeTarget = (i: number, target: string) =>
    setKept((k) => ({ ...k, steps: k.steps.map((s, j) => (j === i ? { ...s, targets: s.targets.filter((x) => x !== target) } : s)) }));

  const times = timeChoices(proposal);
  const count = keptCount(kept);

  return (
    <div
      ref={root}
      class={`approval-card plan-card${active ? " is-active" : ""}`}
      tabIndex={0}
      role="group"
      aria-label={t("plan.title")}
      data-approval={approval.id}
      data-plan=""
      onKeyDown={onKeyDown}
    >
      <ApprovalHead title={t("plan.title")} group={null} position={position} total={total}>
        <span class="tag tag--policy">{t("plan.steps", { n: proposal.steps.length })}</span>
      </ApprovalHead>
      {exposed ? (
        <p class="plan-exposed" role="note">
          {t("plan.exposed")}
        </p>
      ) : null}
      <p class="approval-reason">{t("plan.intro")}</p>
      {shown.unconfined ? (
        <p class="plan-exposed" role="note" data-unconfined="">
          {t("plan.unconfined", { why: unconfinedText(shown.unconfined) })}
        </p>
      ) : null}
      <ol class="plan-steps">
        {proposal.steps.map((step, i) => {
          const k = kept.steps[i];
          const id = `${approval.id}-step-${i}`;
          return (
            <li key={id} class={`plan-step${k?.kept ? "" : " is-dropped"}`}>
              <label class="plan-step-head" for={id}>
                <input
                  id={id}
                  type="checkbox"
                  data-role={`plan-step-${i + 1}`}
                  checked={k?.kept ?? false}
                  disabled={busy}
                  onChange={() => toggle(i)}
                />
                <span class="plan-purpose">
                  <RevealedLine text={step.purpose} />
                </span>
              </label>
              <div class="plan-step-detail muted">
                {t("plan.calls", { tool: step.tool, n: step.maxCalls })}
                {step.pattern ? (
                  <>
                    {" · "}
                    <code>
                      <RevealedLine text={step.pattern} />
                    </code>
                  </>
                ) : null}
              </div>
              {step.targets.length > 0 ? (
                <ul class="plan-targets" aria-label={t("plan.targets")}>
                  {step.targets.map((target) =>
                    k?.targets.includes(target) ? (
                      <li key={target} class={`plan-target${markOf(i, target)?.sources.length ? " is-untrusted" : ""}`}>
                        <RevealedLine text={target} />
                        <TargetMark mark={markOf(i, target)} />
                        <button
                          type="button"
                          class="btn btn--icon btn--small"
                          disabled={busy || !k.kept}
                          aria-label={t("plan.removeTarget", { target })}
                          title={t("plan.removeTarget", { target })}
                          onClick={() => removeTarget(i, target)}
                        >
                          ×
                        </button>
                      </li>
                    ) : null,
                  )}
                </ul>
              ) : step.from?.length ? null : (
                <div class="plan-step-detail muted">{t("plan.noTargets")}</div>
              )}
              {step.from?.length ? <div class="plan-step-detail plan-from">{t("plan.from", { tools: step.from.join(", ") })}</div> : null}
            </li>
          );
        })}
      </ol>
      <label class="plan-time">
        {t("plan.time")}{" "}
        <select
          value={kept.minutes === null ? "turn" : String(kept.minutes)}
          disabled={busy}
          onChange={(e) => {
            const v = (e.target as HTMLSelectElement).value;
            setKept((k) => ({ ...k, minutes: v === "turn" ? null : Number(v) }));
          }}
        >
          {times.map((m) => (
            <option key={m ?? "turn"} value={m === null ? "turn" : String(m)}>
              {timeLabel(m)}
            </option>
          ))}
        </select>
      </label>
      {error ? (
        <p class="inline-error" role="alert">
          {error}
        </p>
      ) : null}
      <div class="approval-actions">
        <button type="button" class="btn btn--primary" disabled={busy} onClick={approve}>
          {count === 0 ? t("plan.approveNone") : t("plan.approve", { n: count })} <kbd>Enter</kbd>
        </button>
        <button type="button" class="btn" disabled={busy} onClick={decline}>
          {t("plan.decline")} <kbd>Esc</kbd>
        </button>
      </div>
    </div>
  );
}
