import { useEffect, useRef, useState } from "preact/hooks";
import * as api from "../api";
import type { ChatRow, ChatSandbox, SandboxLevel, SandboxReport } from "../types";
import { type Key, t } from "../i18n";
import { useAction, useLoad } from "./hooks";
import { Icon } from "./icons";

const LEVELS: { level: SandboxLevel; label: Key; hint: Key }[] = [
  { level: "workspaceOnly", label: "sandbox.level.workspaceOnly", hint: "sandbox.hint.workspaceOnly" },
  { level: "readOnly", label: "sandbox.level.readOnly", hint: "sandbox.hint.readOnly" },
  { level: "off", label: "sandbox.level.off", hint: "sandbox.hint.off" },
];

/** The level's short name ("Workspace only"). */
export function levelName(level: SandboxLevel): string {
  switch (level) {
    case "workspaceOnly":
      return t("sandbox.short.workspaceOnly");
    case "readOnly":
      return t("sandbox.short.readOnly");
    case "off":
      return t("sandbox.short.off");
  }
}

/** One line saying how a command runs (or ran): confined, and how; or that it is not. */
export function sandboxSummary(report: SandboxReport): { text: string; confined: boolean } {
  const network = report.network ? t("sandbox.networkOn") : t("sandbox.networkOff");
  switch (report.mode) {
    case "confined":
      return { text: t("sandbox.confined", { level: levelName(report.level), network }), confined: true };
    case "networkOpen":
      return { text: t("sandbox.networkOpen", { level: levelName(report.level) }), confined: true };
    case "off":
      return { text: t("sandbox.off"), confined: false };
    case "unavailable":
      return { text: t("sandbox.unavailable"), confined: false };
  }
}

/**
 * The sandbox a command will run under (approval card) or ran under (tool card, with what it
 * blocked). Anything short of a confined run is shown as a warning, never silently.
 */
export function SandboxLine({ report, stage, onRerun }: { report: SandboxReport; stage: "approval" | "result"; onRerun?: (() => void) | undefined }) {
  const { text, confined } = sandboxSummary(report);
  const blocked = report.blocked ?? [];
  return (
    <div class={`sandbox-line${confined ? "" : " is-open"}`} data-role={`sandbox-${stage}`} data-mode={report.mode}>
      <div class="sandbox-mode">
        <Icon name={confined ? "lock" : "unlock"} />
        <span>{stage === "approval" ? t("sandbox.willRun", { how: text }) : t("sandbox.ran", { how: text })}</span>
      </div>
      {blocked.length ? (
        <div class="sandbox-blocked" role="note" data-role="sandbox-blocked">
          <strong>{t("sandbox.blocked")}</strong>
          <ul>
            {blocked.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
          {onRerun && confined ? (
            <button
              type="button"
              class="btn btn--small btn--danger-outline"
              data-role="sandbox-rerun"
              title={t("sandbox.rerunHint")}
              onClick={onRerun}
            >
              {t("sandbox.rerun")}
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/**
 * The chat's sandbox in the tools popover: a level, a network switch, and — where the system
 * has no sandbox — a notice saying so. Turning the sandbox off asks first.
 */
export function SandboxSettings({ chat, onChanged }: { chat: ChatRow; onChanged: () => void }) {
  // Controls are never disabled while saving: that would take the keyboard focus away.
  const current = chat.toolOverrides.sandbox;
  const support = useLoad(() => api.sandboxSupport(), []);
  const saving = useAction();
  const [confirmOff, setConfirmOff] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);
  // The safe answer has the focus: a stray Enter or Space keeps the sandbox.
  useEffect(() => {
    if (confirmOff) cancel.current?.focus();
  }, [confirmOff]);

  const save = (next: ChatSandbox, confirmedOff = false) =>
    void saving.run(async () => {
      await api.setChatSandbox(chat.id, next, confirmedOff);
      // Only the answer to the question closes it: an earlier choice that finishes saving
      // while the question is open leaves it open.
      if (confirmedOff) setConfirmOff(false);
      onChanged();
    });

  const choose = (level: SandboxLevel) => {
    if (level === current.level) return;
    if (level === "off") {
      setConfirmOff(true);
      return;
    }
    setConfirmOff(false);
    save({ ...current, level });
  };

  const s = support.data;
  return (
    <div class="sandbox-settings" data-role="sandbox-settings">
      <div class="popover-title">{t("sandbox.title")}</div>
      {s && s.kind === "unavailable" ? (
        <p class="notice notice--warn small" data-role="sandbox-unsupported">
          {t("sandbox.unsupported", { reason: s.reason })}
        </p>
      ) : null}
      <div role="radiogroup" aria-label={t("sandbox.title")} class="sandbox-levels">
        {LEVELS.map((l) => (
          <label class="radio-row" key={l.level}>
            <input type="radio" name={`sandbox-${chat.id}`} value={l.level} checked={current.level === l.level} onChange={() => choose(l.level)} />
            <span>
              <strong>{t(l.label)}</strong>
              <small class="muted block">{t(l.hint)}</small>
            </span>
          </label>
        ))}
      </div>
      {confirmOff ? (
        <div class="sandbox-confirm" role="alertdialog" aria-label={t("sandbox.confirmTitle")} data-role="sandbox-confirm-off">
          <p>{t("sandbox.confirmText")}</p>
          <div class="row-actions">
            <button type="button" class="btn btn--danger" disabled={saving.busy} onClick={() => save({ ...current, level: "off" }, true)}>
              {t("sandbox.confirmOff")}
            </button>
            <button type="button" class="btn" ref={cancel} onClick={() => setConfirmOff(false)}>
              {t("common.cancel")}
            </button>
          </div>
        </div>
      ) : null}
      <label class="switch-row sandbox-network">
        <input
          type="checkbox"
          class="switch"
          checked={current.network}
          disabled={current.level === "off"}
          onChange={(e) => save({ ...current, network: e.currentTarget.checked })}
        />
        <span>
          <strong>{t("sandbox.network")}</strong>
          <small class="muted block">
            {current.level === "off"
              ? t("sandbox.networkWhenOff")
              : s?.kind === "filesOnly"
                ? t("sandbox.networkCannotClose")
                : t("sandbox.networkHint")}
          </small>
        </span>
      </label>
      {saving.error ? <p class="inline-error">{saving.error}</p> : null}
    </div>
  );
}
