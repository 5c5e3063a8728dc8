import { useState } from "preact/hooks";
import {
  compressArgs,
  decidedByKey,
  executionAllowed,
  executionChoiceKey,
  formatDuration,
  formatTokens,
  prettyJson,
  resultApproved,
  resultChoiceKey,
  statusInfo,
} from "../format";
import { type Key, t } from "../i18n";
import { type CallProgress, type CallView, goesOn } from "../timeline";
import { sourceText } from "../provenance";
import { Attachments } from "./Attachments";
import { ResourceLinks } from "./ResourceLinks";
import { AskedQuestions } from "./AskedQuestions";
import { SampledTexts } from "./SampledTexts";
import { SandboxLine, sandboxSummary } from "./Sandbox";
import type { Attachment, UiCallStatus } from "../types";

export function StatusIcon({ status }: { status: UiCallStatus }) {
  const info = statusInfo(status);
  const label = t(info.label);
  return (
    <span class={`status-icon tone-${info.tone}`} title={label} aria-label={label}>
      {info.icon}
    </span>
  );
}

/** One line of what was decided about a call: the words, and whether it let the call (or its result) through. */
export interface DecisionLine {
  stage: "execution" | "result";
  text: string;
  allowed: boolean;
}

/** "Allowed once · by you"; just the decision when nobody is named. */
function decidedBy(decision: Key, by: Key | null): string {
  return by ? t("tool.decidedBy", { decision: t(decision), by: t(by) }) : t(decision);
}

/**
 * A card's decision lines: whether it ran and who decided ("Allowed · by a rule"), then, when
 * its result was reviewed, that decision on its own line ("Result withheld · by you": only the
 * user reviews results). Empty while nothing is decided.
 */
export function decisionLines(call: Pick<CallView, "decision" | "decidedBy">): DecisionLine[] {
  const lines: DecisionLine[] = [];
  const { execution, result } = call.decision;
  if (execution) {
    lines.push({
      stage: "execution",
      text: decidedBy(executionChoiceKey(execution), decidedByKey(call.decidedBy)),
      allowed: executionAllowed(execution),
    });
  }
  if (result) {
    lines.push({ stage: "result", text: decidedBy(resultChoiceKey(result), "by.user"), allowed: resultApproved(result) });
  }
  return lines;
}

/** The command line of a shell call's arguments (empty when there is none). */
function commandOf(args: unknown): string {
  if (args && typeof args === "object" && "command" in args) {
    const command = (args as { command: unknown }).command;
    if (typeof command === "string") return command;
  }
  return "";
}

/**
 * What a progress report says in words: the part done when the total is known, else the count
 * so far (none yet: only the message, e.g. what the call waits for).
 */
export function progressText(p: CallProgress): string {
  const amount =
    p.total !== null
      ? t("tool.progressPercent", { percent: Math.floor(Math.min(1, Math.max(0, p.progress / p.total)) * 100) })
      : p.progress > 0
        ? t("tool.progressCount", { count: Number.isInteger(p.progress) ? p.progress : p.progress.toFixed(1) })
        : null;
  return [p.message, amount].filter((part) => part).join(" · ");
}

/** A running call's progress as its MCP server reports it (SPEC §11): a bar when the total is known. */
function ProgressLine({ progress }: { progress: CallProgress }) {
  const text = progressText(progress);
  return (
    <div class="tool-card-progress" data-role="progress">
      {progress.total !== null ? (
        <progress max={progress.total} value={Math.min(progress.progress, progress.total)} aria-label={text} />
      ) : (
        <progress aria-label={text} />
      )}
      <span class="tool-card-progress-text" aria-live="polite">
        {text}
      </span>
    </div>
  );
}

/** One tool call: a compact row that expands to full arguments, result, live output and variables. */
export function ToolCard({
  call,
  compact = false,
  onRerun,
  onAttach,
  onStop,
  fromView,
}: {
  call: CallView;
  compact?: boolean;
  /** The call was made by this server's view (F-96), not by the model. */
  fromView?: string | undefined;
  onRerun?: ((command: string) => void) | undefined;
  /** Puts files in the message being written: a resource the result linked (SPEC §11). */
  onAttach?: ((files: Attachment[]) => void) | undefined;
  /** Stops this call while its tool runs (a long MCP task, a slow command); the turn goes on. */
  onStop?: (() => void) | undefined;
}) {
  const [open, setOpen] = useState(false);
  const info = statusInfo(call.status);
  const decisions = decisionLines(call);
  const duration = formatDuration(call.durationMs);
  const images = call.images.filter((a) => a.kind !== "resourceLink");
  const links = call.images.filter((a) => a.kind === "resourceLink");
  const preview = call.preview ?? (call.output ? (call.output.trim().split("\n").pop() ?? "") : "");
  return (
    <div class={`tool-card tone-border-${info.tone}${compact ? " tool-card--compact" : ""}${open ? " is-open" : ""}`} data-seq={call.seq}>
      <button type="button" class="tool-card-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <StatusIcon status={call.status} />
        <code class="tool-card-name">{call.name}</code>
        <span class="tool-card-args">{compressArgs(call.args)}</span>
        <span class="tool-card-meta">
          {call.status !== "success" ? <span class={`tone-${info.tone}`}>{t(info.label)}</span> : null}
          {duration ? <span>{duration}</span> : null}
        </span>
        <span class="chevron" aria-hidden="true">
          {open ? "▾" : "▸"}
        </span>
      </button>
      {fromView !== undefined ? (
        <div class="tool-card-origin" data-role="made-by-view">
          {t("view.madeBy", { server: fromView })}
        </div>
      ) : null}
      {decisions.length ? (
        <div class="tool-card-decisions">
          {decisions.map((d) => (
            <div key={d.stage} class={`tool-card-decision${d.allowed ? "" : " is-denied"}`} data-decision={d.stage}>
              {d.text}
            </div>
          ))}
        </div>
      ) : null}
      {call.guard === "escalated" ? (
        <div class="tool-card-guard" data-guard={call.guard}>
          {t("tool.guardEscalated")}
        </div>
      ) : null}
      {call.sources.length ? (
        <div class="tool-card-sources muted" data-role="sources">
          {t("tool.sources", { list: call.sources.map(sourceText).join(", ") })}
        </div>
      ) : null}
      {call.sandbox && (!compact || call.sandbox.blocked?.length || !sandboxSummary(call.sandbox).confined) ? (
        <SandboxLine
          report={call.sandbox}
          stage="result"
          command={commandOf(call.args)}
          onRerun={onRerun ? () => onRerun(commandOf(call.args)) : undefined}
        />
      ) : null}
      {call.lent?.length ? (
        <div class="tool-card-lent muted" data-role="lent-model">
          {t("tool.lentModel", { count: call.lent.length })}
        </div>
      ) : null}
      {call.asked?.length ? (
        <div class="tool-card-lent muted" data-role="server-asked">
          {t("tool.asked", { server: call.group ?? call.name, count: call.asked.length })}
        </div>
      ) : null}
      {call.status === "in_background" ? (
        <div class="tool-card-background muted" data-role="in-background">
          {t("tool.inBackground")}
        </div>
      ) : null}
      {call.progress && goesOn(call.status) ? <ProgressLine progress={call.progress} /> : null}
      {onStop && (call.status === "running" || call.status === "in_background") ? (
        <div class="row tool-card-stop">
          <button type="button" class="btn btn--small" data-role="stop-call" onClick={onStop}>
            {t("tool.stop")}
          </button>
        </div>
      ) : null}
      {preview && !open ? <div class="tool-card-preview">{preview}</div> : null}
      {images.length ? (
        <div class="tool-card-images" data-role="tool-images">
          <Attachments files={images} label={t("tool.images")} />
        </div>
      ) : null}
      {links.length ? <ResourceLinks links={links} onAttach={onAttach} /> : null}
      {open ? (
        <div class="tool-card-body">
          {call.group || call.policy ? (
            <div class="kv-line">
              {call.group ? (
                <span>
                  {t("tool.group")}: <code>{call.group}</code>
                </span>
              ) : null}
              {call.policy ? (
                <span>
                  {t("tool.policy")}: <code>{call.policy}</code>
                </span>
              ) : null}
            </div>
          ) : null}
          <div class="section-label">{t("tool.args")}</div>
          <pre class="code-pane">{prettyJson(call.args)}</pre>
          {call.output ? (
            <>
              <div class="section-label">{t("tool.output")}</div>
              {call.outputDropped > 0 ? <p class="muted output-dropped">{t("tool.outputDropped", { count: call.outputDropped })}</p> : null}
              <pre class="code-pane">{call.output}</pre>
            </>
          ) : null}
          {call.content !== null ? (
            <>
              <div class="section-label">
                {t("tool.result")}
                {call.truncated ? <span class="tag">{t("tool.truncated")}</span> : null}
              </div>
              <pre class={`code-pane${call.isError ? " code-pane--error" : ""}`}>{call.content}</pre>
            </>
          ) : null}
          {(call.lent ?? []).map((lent, i) => (
            <div key={i} class="elicit-sampling" data-role="lent-exchange">
              <div class="section-label">
                {t("tool.lentSent")}
                <span class="muted">
                  {lent.model} · {t("chat.usage", { input: formatTokens(lent.inputTokens), output: formatTokens(lent.outputTokens) })}
                </span>
              </div>
              <SampledTexts server={call.group ?? call.name} system={lent.system} messages={lent.messages} answer={lent.answer} />
            </div>
          ))}
          {call.asked?.length ? <AskedQuestions server={call.group ?? call.name} asked={call.asked} /> : null}
          {call.resultVar || call.argsVar ? (
            <>
              <div class="section-label">{t("tool.variables")}</div>
              <div class="kv-line">
                {call.resultVar ? (
                  <span>
                    {t("tool.resultVar")} <code>{call.resultVar}</code>
                  </span>
                ) : null}
                {call.argsVar ? (
                  <span>
                    {t("tool.argsVar")} <code>{call.argsVar}</code>
                  </span>
                ) : null}
              </div>
            </>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
