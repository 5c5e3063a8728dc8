/**
 * The plan in force, under the chat's header (F-98): the steps of the plan the user approved,
 * each ticked off with the calls that did it, what the grant has left, how long it lasts, and
 * Stop, which ends it at once (the task goes on, asking call by call). Shown while a grant
 * lasts; it ends with its turn.
 */
import * as api from "../api";
import { relativeTime } from "../format";
import { t } from "../i18n";
import { type StepProgress, taskProgress } from "../plan";
import type { ChatId, TaskState } from "../types";
import { RevealedLine } from "./ApprovalParts";
import { useAction } from "./hooks";

function StepState({ step }: { step: StepProgress }) {
  const key = step.done ? "task.done" : step.made.length > 0 ? "task.partly" : "task.notYet";
  const mark = step.done ? "✓" : step.made.length > 0 ? "◐" : "○";
  return (
    <span class="task-tick" title={t(key)}>
      <span aria-hidden="true">{mark}</span>
      <span class="sr-only">{t(key)}</span>
    </span>
  );
}

/** Gives the keyboard back to the card waiting in `chat`, if one is: the plan it stopped is
 * gone with its button, and the card is what the user answers next. */
function focusWaitingCard(chat: ChatId): void {
  document.querySelector<HTMLElement>(`[data-chat="${chat}"] .approval-card.is-active`)?.focus();
}

export function TaskStrip({ chat, task }: { chat: ChatId; task: TaskState }) {
  const action = useAction();
  const { steps, left } = taskProgress(task);
  const span = task.grant.span;
  const lasts = span.type === "until" ? t("task.until", { time: relativeTime(span.endsAtMs) }) : t("task.turn");
  return (
    <section class="task-strip" role="region" aria-label={t("task.label")} data-role="task">
      <div class="task-head">
        <span class="task-title">{t("task.title")}</span>
        <span class="muted" data-role="task-left">
          {t("task.left", { n: left })} · {lasts}
        </span>
        <button
          type="button"
          class="btn btn--small btn--danger-outline"
          data-role="task-stop"
          title={t("task.stopHint")}
          disabled={action.busy}
          onClick={() =>
            void action.run(async () => {
              await api.stopTask(chat);
              focusWaitingCard(chat);
            })
          }
        >
          {t("task.stop")}
        </button>
      </div>
      <ol class="task-steps">
        {steps.map((step, i) => (
          <li key={i} class={`task-step${step.done ? " is-done" : ""}`} data-step={i + 1}>
            <StepState step={step} />
            <span class="task-purpose">
              <RevealedLine text={step.purpose} />
            </span>
            <span class="muted">{t("task.calls", { tool: step.tool, made: step.made.length, max: step.maxCalls })}</span>
            {step.made.length > 0 ? <span class="muted task-made">{t("task.by", { calls: step.made.map((n) => `#${n}`).join(", ") })}</span> : null}
          </li>
        ))}
      </ol>
      {action.error ? (
        <p class="inline-error" role="alert">
          {action.error}
        </p>
      ) : null}
    </section>
  );
}
