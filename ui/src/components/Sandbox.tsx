import { useEffect, useRef, useState } from "preact/hooks";
import * as api from "../api";
import type { ChatRow, ChatSandbox, SandboxGap, SandboxLevel, SandboxReport } from "../types";
import { type Key, t } from "../i18n";
import { sandboxHiddenQuery, sandboxSupportQuery } from "../queries";
import { useAction } from "./hooks";
import { useServerState } from "./useServerState";
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

/** What this system does not enforce, in a few words. */
export function gapText(gap: SandboxGap): string {
  switch (gap) {
    case "localSockets":
      return t("sandbox.gap.localSockets");
    case "network":
      return t("sandbox.gap.network");
    case "udp":
      return t("sandbox.gap.udp");
    case "abstractSockets":
      return t("sandbox.gap.abstractSockets");
    case "signals":
      return t("sandbox.gap.signals");
    case "protectedPaths":
      return t("sandbox.gap.protectedPaths");
    case "truncate":
      return t("sandbox.gap.truncate");
    case "deviceIoctl":
      return t("sandbox.gap.deviceIoctl");
    case "fileRules":
      return t("sandbox.gap.fileRules");
    case "hostsOnly":
      return t("sandbox.gap.hostsOnly");
  }
}

/** How far commands reach the network: not at all, the listed hosts only, or everywhere. */
type NetworkMode = "off" | "hosts" | "on";

/** Host names typed by the user (spaces, commas or new lines between them). */
export function parseHosts(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((h) => h.trim())
    .filter((h) => h.length > 0);
}

/** `NAME=value` lines typed by the user, as variables (blank lines and lines without `=` left out). */
export function parseEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const at = line.indexOf("=");
    if (at <= 0) continue;
    env[line.slice(0, at).trim()] = line.slice(at + 1);
  }
  return env;
}

/** Variables as `NAME=value` lines, sorted by name. */
function envLines(env: Record<string, string>): string {
  return Object.keys(env)
    .sort()
    .map((k) => `${k}=${env[k]}`)
    .join("\n");
}

/** One line saying how a command runs (or ran): confined, and how; or that it is not. */
export function sandboxSummary(report: SandboxReport): { text: string; confined: boolean } {
  const network = report.network
    ? t("sandbox.networkOn")
    : report.hosts?.length
      ? t("sandbox.networkHosts", { hosts: report.hosts.join(", ") })
      : t("sandbox.networkOff");
  const level = levelName(report.level);
  switch (report.mode) {
    case "confined":
      return { text: t("sandbox.confined", { level, network }), confined: true };
    case "partial":
      return { text: t("sandbox.partial", { level, network }), confined: true };
    case "off":
      return { text: t("sandbox.off"), confined: false };
    case "unavailable":
      return { text: t("sandbox.unavailable"), confined: false };
  }
}

/**
 * The sandbox a command will run under (approval card) or ran under (tool card, with what it
 * blocked). Anything short of a fully confined run is shown as a warning, never silently: a
 * partial sandbox lists what this system does not enforce. "Run again without the sandbox" first
 * shows exactly what will run, where, and which files the blocked run changed.
 */
export function SandboxLine({
  report,
  stage,
  command,
  onRerun,
}: {
  report: SandboxReport;
  stage: "approval" | "result";
  command?: string | undefined;
  onRerun?: (() => void) | undefined;
}) {
  const { text, confined } = sandboxSummary(report);
  const blocked = report.blocked ?? [];
  const gaps = report.gaps ?? [];
  const changed = report.changed ?? [];
  const [confirming, setConfirming] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);
  const rerunButton = useRef<HTMLButtonElement>(null);
  const refocus = useRef(false);
  // The safe answer has the focus: a stray Enter or Space runs nothing. Cancelled, the focus
  // goes back to the button that asked.
  useEffect(() => {
    if (confirming) cancel.current?.focus();
    else if (refocus.current) {
      refocus.current = false;
      rerunButton.current?.focus();
    }
  }, [confirming]);
  const cancelRerun = () => {
    refocus.current = true;
    setConfirming(false);
  };
  return (
    <div class={`sandbox-line${confined && !gaps.length ? "" : " is-open"}`} data-role={`sandbox-${stage}`} data-mode={report.mode}>
      <div class="sandbox-mode">
        <Icon name={confined ? "lock" : "unlock"} />
        <span>{stage === "approval" ? t("sandbox.willRun", { how: text }) : t("sandbox.ran", { how: text })}</span>
      </div>
      {confined ? (
        <div class="sandbox-detail small muted" data-role="sandbox-environment">
          {t("sandbox.environment")}
          {report.env?.length ? ` ${t("sandbox.environmentAdded", { names: report.env.join(", ") })}` : ""}
          {report.gitWritable ? ` ${t("sandbox.gitWritableNote")}` : ""}
        </div>
      ) : null}
      {confined && gaps.length ? (
        <div class="sandbox-gaps small" data-role="sandbox-gaps">
          <span>{t("sandbox.gapsTitle")}</span>
          <ul>
            {gaps.map((g) => (
              <li key={g}>{gapText(g)}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {blocked.length ? (
        <div class="sandbox-blocked" role="note" data-role="sandbox-blocked">
          <strong>{t("sandbox.blocked")}</strong>
          <ul>
            {blocked.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
          {onRerun && confined && !confirming ? (
            <button
              type="button"
              class="btn btn--small btn--danger-outline"
              data-role="sandbox-rerun"
              ref={rerunButton}
              title={t("sandbox.rerunHint")}
              onClick={() => setConfirming(true)}
            >
              {t("sandbox.rerun")}
            </button>
          ) : null}
          {onRerun && confirming ? (
            <div
              class="sandbox-confirm"
              role="alertdialog"
              aria-label={t("sandbox.rerunConfirmTitle")}
              data-role="sandbox-rerun-confirm"
              onKeyDown={(e) => {
                if (e.key === "Escape") {
                  e.stopPropagation();
                  cancelRerun();
                }
              }}
            >
              <p>{t("sandbox.rerunConfirmText")}</p>
              <pre class="sandbox-rerun-command" data-role="sandbox-rerun-command">
                {command ?? ""}
              </pre>
              {report.workspace ? (
                <p class="small">
                  {t("sandbox.rerunWhere")} <code data-role="sandbox-rerun-workspace">{report.workspace}</code>
                </p>
              ) : null}
              {changed.length ? (
                <div class="notice notice--warn small" data-role="sandbox-rerun-changed">
                  <p>{t("sandbox.rerunChanged")}</p>
                  <ul>
                    {changed.map((f) => (
                      <li key={f}>
                        <code>{f}</code>
                      </li>
                    ))}
                  </ul>
                </div>
              ) : null}
              <div class="row-actions">
                <button
                  type="button"
                  class="btn btn--danger"
                  data-role="sandbox-rerun-run"
                  onClick={() => {
                    setConfirming(false);
                    onRerun();
                  }}
                >
                  {t("sandbox.rerunConfirm")}
                </button>
                <button type="button" class="btn" ref={cancel} onClick={cancelRerun}>
                  {t("common.cancel")}
                </button>
              </div>
            </div>
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
  const support = useServerState(sandboxSupportQuery);
  const hidden = useServerState(sandboxHiddenQuery);
  const saving = useAction();
  const [confirmOff, setConfirmOff] = useState(false);
  const [hostsChosen, setHostsChosen] = useState(false);
  const [hostsText, setHostsText] = useState((current.hosts ?? []).join(" "));
  const [envText, setEnvText] = useState(envLines(current.env ?? {}));
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
  const gaps = s ? (current.network ? s.gapsNetworkOn : s.gapsNetworkOff) : [];
  const networkMode: NetworkMode = current.network ? "on" : hostsChosen || current.hosts?.length ? "hosts" : "off";
  const chooseNetwork = (m: NetworkMode) => {
    setHostsChosen(m === "hosts");
    if (m === "on") save({ ...current, network: true, hosts: [] });
    else if (m === "off") save({ ...current, network: false, hosts: [] });
    else if (parseHosts(hostsText).length) save({ ...current, network: false, hosts: parseHosts(hostsText) });
  };
  const saveEnv = (text: string) => {
    const env = parseEnv(text);
    if (envLines(env) !== envLines(current.env ?? {})) save({ ...current, env });
  };
  const saveHosts = (text: string) => {
    const hosts = parseHosts(text);
    if (hosts.join(" ") !== (current.hosts ?? []).join(" ")) save({ ...current, network: false, hosts });
  };
  return (
    <div class="sandbox-settings" data-role="sandbox-settings">
      <div class="popover-title">{t("sandbox.title")}</div>
      {s?.unavailable ? (
        <p class="notice notice--warn small" data-role="sandbox-unsupported">
          {t("sandbox.unsupported", { reason: s.unavailable })}
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
      <div class="sandbox-network" role="radiogroup" aria-label={t("sandbox.network")} data-role="sandbox-network">
        <strong>{t("sandbox.network")}</strong>
        {current.level === "off" ? (
          <small class="muted block">{t("sandbox.networkWhenOff")}</small>
        ) : (
          <>
            {(["off", "hosts", "on"] as const).map((m) => (
              <label class="radio-row" key={m}>
                <input
                  type="radio"
                  name={`sandbox-network-${chat.id}`}
                  value={`network-${m}`}
                  checked={networkMode === m}
                  onChange={() => chooseNetwork(m)}
                />
                <span>{t(`sandbox.network.${m}`)}</span>
              </label>
            ))}
            {networkMode === "hosts" ? (
              <label class="field sandbox-hosts">
                <span class="small muted">{t("sandbox.hostsHint")}</span>
                <input
                  type="text"
                  class="mono"
                  data-role="sandbox-hosts"
                  value={hostsText}
                  placeholder="registry.npmjs.org pypi.org *.pythonhosted.org"
                  onInput={(e) => setHostsText(e.currentTarget.value)}
                  onBlur={(e) => saveHosts(e.currentTarget.value)}
                  onKeyDown={(e) => {
                    if (e.key === "Enter") {
                      e.preventDefault();
                      saveHosts(e.currentTarget.value);
                    }
                  }}
                />
              </label>
            ) : null}
            <small class="muted block">{gaps.includes("network") ? t("sandbox.networkCannotClose") : t("sandbox.networkHint")}</small>
          </>
        )}
      </div>
      <label class="switch-row sandbox-git">
        <input
          type="checkbox"
          class="switch"
          data-role="sandbox-git-writable"
          checked={current.gitWritable ?? false}
          disabled={current.level !== "workspaceOnly"}
          onChange={(e) => save({ ...current, gitWritable: e.currentTarget.checked })}
        />
        <span>
          <strong>{t("sandbox.gitWritable")}</strong>
          <small class="muted block">{t("sandbox.gitWritableHint")}</small>
        </span>
      </label>
      {current.level !== "off" ? (
        <label class="field sandbox-env">
          <strong>{t("sandbox.envTitle")}</strong>
          <small class="muted block">{t("sandbox.envHint")}</small>
          <textarea
            class="mono"
            rows={2}
            data-role="sandbox-env"
            value={envText}
            placeholder="RUST_LOG=debug"
            onInput={(e) => setEnvText(e.currentTarget.value)}
            onBlur={(e) => saveEnv(e.currentTarget.value)}
          />
        </label>
      ) : null}
      {s && !s.unavailable ? (
        <div class="sandbox-support small" data-role="sandbox-support">
          <p class={gaps.length ? "notice notice--warn small" : "muted"}>
            {t(gaps.length ? "sandbox.supportPartial" : "sandbox.supportFull", {
              abi: String(s.landlockAbi),
              namespaces: s.namespaces ? t("sandbox.namespacesYes") : t("sandbox.namespacesNo", { why: s.namespacesMissing ?? "" }),
            })}
          </p>
          {gaps.length ? (
            <ul data-role="sandbox-support-gaps">
              {gaps.map((g) => (
                <li key={g}>{gapText(g)}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      {hidden.data?.length ? (
        <details class="sandbox-hidden small" data-role="sandbox-hidden">
          <summary>{t("sandbox.hiddenTitle", { count: String(hidden.data.length) })}</summary>
          <p class="muted">{t("sandbox.hiddenHint")}</p>
          <ul>
            {hidden.data.map((p) => (
              <li key={p}>
                <code>{p}</code>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {saving.error ? <p class="inline-error">{saving.error}</p> : null}
    </div>
  );
}
