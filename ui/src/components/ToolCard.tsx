import { useState } from "preact/hooks";
import { compressArgs, decidedByKey, decisionKey, formatDuration, prettyJson, statusInfo } from "../format";
import { t } from "../i18n";
import type { CallView } from "../timeline";

export function StatusIcon({ status }: { status: string }) {
  const info = statusInfo(status);
  return (
    <span class={`status-icon tone-${info.tone}`} title={info.label ? t(info.label) : status} aria-label={info.label ? t(info.label) : status}>
      {info.icon}
    </span>
  );
}

/** "Allowed once by you" style line; empty when the call has no decision yet. */
export function decisionLine(call: CallView): string {
  const d = decisionKey(call.decision);
  const by = decidedByKey(call.decidedBy);
  if (d && by) return t("tool.decidedBy", { decision: t(d), by: t(by) });
  if (d) return t(d);
  if (by) return t(by);
  return "";
}

/** One tool call: a compact row that expands to full arguments, result, live output and variables. */
export function ToolCard({ call, compact = false }: { call: CallView; compact?: boolean }) {
  const [open, setOpen] = useState(false);
  const info = statusInfo(call.status);
  const decision = decisionLine(call);
  const duration = formatDuration(call.durationMs);
  const preview = call.preview ?? (call.output ? call.output.trim().split("\n").pop() ?? "" : "");
  return (
    <div class={`tool-card tone-border-${info.tone}${compact ? " tool-card--compact" : ""}${open ? " is-open" : ""}`} data-seq={call.seq}>
      <button type="button" class="tool-card-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <StatusIcon status={call.status} />
        <code class="tool-card-name">{call.name}</code>
        <span class="tool-card-args">{compressArgs(call.args)}</span>
        <span class="tool-card-meta">
          {info.label && call.status !== "success" ? <span class={`tone-${info.tone}`}>{t(info.label)}</span> : null}
          {decision && !compact ? <span>{decision}</span> : null}
          {duration ? <span>{duration}</span> : null}
        </span>
        <span class="chevron" aria-hidden="true">
          {open ? "▾" : "▸"}
        </span>
      </button>
      {preview && !open ? <div class="tool-card-preview">{preview}</div> : null}
      {open ? (
        <div class="tool-card-body">
          {call.group || call.policy || decision ? (
            <div class="kv-line">
              {decision ? <span>{decision}</span> : null}
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
