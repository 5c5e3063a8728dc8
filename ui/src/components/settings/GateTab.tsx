/**
 * Settings → Gate (F-82, F-85): the provenance gate's switch (turning it off is a warned choice),
 * what the user trusts in every chat (web hosts, folders, MCP servers, tools), the folders whose
 * workspaces count as untrusted, the files tools wrote from untrusted content (SPEC §12), and the
 * autonomy figures across all chats.
 */
import { useState } from "preact/hooks";
import "./GateTab.css";
import * as api from "../../api";
import { type Key, t } from "../../i18n";
import { relativeTime } from "../../format";
import { sourceText, trustKeyText } from "../../provenance";
import { saveToolSettings } from "../../toolSettingsSave";
import type { GuardSettings, SettingsView, TrustKey, WrittenFile } from "../../types";
import { AutonomyLine } from "../Guard";
import { AUTONOMY, autonomyQuery, WRITTEN_FILES, writtenFilesQuery } from "../../queries";
import { invalidate } from "../../serverState";
import { useAction } from "../hooks";
import { useServerState } from "../useServerState";
import { ErrorState, Loading } from "../States";
import type { Confirm, SharedSettings } from "./shared";

/** The kinds of things the settings can trust everywhere (attachments and imports are per chat). */
type TrustKind = "host" | "folder" | "server" | "tool";

const KINDS: Array<[TrustKind, Key]> = [
  ["host", "gate.kindHost"],
  ["folder", "gate.kindFolder"],
  ["server", "gate.kindServer"],
  ["tool", "gate.kindTool"],
];

/** The key a typed value makes (`null` when it is empty). */
export function trustKey(kind: TrustKind, raw: string): TrustKey | null {
  const value = raw.trim();
  if (!value) return null;
  switch (kind) {
    case "host":
      // A pasted address counts as its host.
      return { type: "host", host: hostOf(value) };
    case "folder":
      return { type: "folder", folder: value };
    case "server":
      return { type: "server", server: value };
    case "tool":
      return { type: "tool", tool: value };
  }
}

function hostOf(value: string): string {
  try {
    return new URL(value.includes("://") ? value : `https://${value}`).hostname.toLowerCase();
  } catch {
    return value.toLowerCase();
  }
}

function kindOf(k: TrustKey): Key {
  switch (k.type) {
    case "host":
      return "gate.kindHost";
    case "folder":
      return "gate.kindFolder";
    case "server":
      return "gate.kindServer";
    case "tool":
    case "attachment":
    case "import":
    case "network":
      return "gate.kindTool";
  }
}

/**
 * The files tools wrote from untrusted content: where each is, what it was written from, and
 * the button that trusts it (its record goes; reading it no longer counts as untrusted).
 */
function WrittenFiles() {
  const files = useServerState(writtenFilesQuery);
  const trusting = useAction();
  const trust = (f: WrittenFile) =>
    void trusting
      .run(() => api.trustWrittenFile(f.workspace, f.path))
      .then((ok) => {
        if (ok) void invalidate(WRITTEN_FILES);
      });
  return (
    <section class="card" data-role="written-files">
      <h2 class="card-title">{t("gate.writtenFiles")}</h2>
      <p class="muted">{t("gate.writtenHint")}</p>
      {files.error !== null ? (
        <ErrorState message={files.error} onRetry={() => void files.reload()} />
      ) : !files.data ? (
        <Loading />
      ) : files.data.length === 0 ? (
        <p class="muted">{t("gate.writtenEmpty")}</p>
      ) : (
        <ul class="plain-list">
          {files.data.map((f) => (
            <li key={`${f.workspace}\u0000${f.path}`} class="row written-file" data-path={f.path}>
              <span class="written-file-where">
                <span class="mono wrap-anywhere">{f.path}</span>{" "}
                <span class="muted small wrap-anywhere">
                  {f.workspace} · {t("gate.writtenFrom", { sources: f.sources.map(sourceText).join(", ") })} · {relativeTime(f.writtenAt)}
                </span>
              </span>
              <button type="button" class="btn btn--small" disabled={trusting.busy} onClick={() => trust(f)} data-role="trust-file">
                {t("gate.trustFile")}
              </button>
            </li>
          ))}
        </ul>
      )}
      {trusting.error ? <p class="inline-error">{trusting.error}</p> : null}
    </section>
  );
}

export function GateTab(props: SharedSettings & { onConfirm: Confirm }) {
  const { settings, settingsError, onReloadSettings, onSettings } = props;
  const saving = useAction();
  const [saves, setSaves] = useState(0);
  const [kind, setKind] = useState<TrustKind>("host");
  const [value, setValue] = useState("");
  const [folder, setFolder] = useState("");
  const figures = useServerState(autonomyQuery);

  if (settingsError !== null) return <ErrorState message={settingsError} onRetry={onReloadSettings} />;
  if (!settings) return <Loading />;
  const guard = settings.tools.guard;

  /** Saves the gate's settings alone, on the newest tool settings (never a stale copy of the
   * tools' confirmed effects). */
  const save = (next: GuardSettings): Promise<void> => {
    const previous: SettingsView = settings;
    onSettings({ ...settings, tools: { ...settings.tools, guard: next } });
    return saving
      .run(async () => {
        const tools = await saveToolSettings(settings.tools, (newest) => ({ ...newest, guard: next }));
        onSettings({ ...previous, tools });
      })
      .then((saved) => {
        if (!saved) {
          onSettings(previous);
          return;
        }
        setSaves((n) => n + 1);
        // What the gate lets through changed: so do the figures of how much ran unasked.
        void invalidate(AUTONOMY);
      });
  };

  const toggle = (on: boolean) => {
    if (on) void save({ ...guard, enabled: true });
    else props.onConfirm(t("gate.offWarning"), () => save({ ...guard, enabled: false }));
  };

  const add = () => {
    const key = trustKey(kind, value);
    if (!key || guard.trusted.some((k) => JSON.stringify(k) === JSON.stringify(key))) return;
    setValue("");
    void save({ ...guard, trusted: [...guard.trusted, key] });
  };

  const addFolder = (path: string) => {
    const clean = path.trim();
    if (!clean || guard.untrustedFolders.includes(clean)) return;
    setFolder("");
    void save({ ...guard, untrustedFolders: [...guard.untrustedFolders, clean] });
  };

  const pick = () =>
    void saving.run(async () => {
      const picked = await api.pickFolder(t("gate.pickFolder"), null);
      if (picked) addFolder(picked);
    });

  return (
    <div class="settings-section" data-role="gate-settings" data-saves={saves}>
      <section class="card">
        <h2 class="card-title">{t("gate.title")}</h2>
        <p class="muted">{t("gate.intro")}</p>
        <label class="switch-row">
          <input type="checkbox" class="switch" checked={guard.enabled} onChange={(e) => toggle(e.currentTarget.checked)} data-role="gate-enabled" />
          <span>{t("gate.enabled")}</span>
        </label>
        {!guard.enabled ? <p class="rule-warning">{t("gate.offWarning")}</p> : null}
        {saving.error ? <p class="inline-error">{saving.error}</p> : null}
      </section>

      <section class="card" data-role="trusted">
        <h2 class="card-title">{t("gate.trusted")}</h2>
        {guard.trusted.length === 0 ? <p class="muted">{t("gate.trustedEmpty")}</p> : null}
        <ul class="plain-list">
          {guard.trusted.map((k) => (
            <li key={JSON.stringify(k)} class="row">
              <span class="tag">{t(kindOf(k))}</span> <span class="mono">{trustKeyText(k)}</span>
              <button
                type="button"
                class="btn btn--ghost btn--small"
                onClick={() => void save({ ...guard, trusted: guard.trusted.filter((x) => x !== k) })}
              >
                {t("common.remove")}
              </button>
            </li>
          ))}
        </ul>
        <form
          class="row gate-form"
          onSubmit={(e) => {
            e.preventDefault();
            add();
          }}
        >
          <label class="field">
            <span>{t("gate.kind")}</span>
            <select value={kind} onChange={(e) => setKind(e.currentTarget.value as TrustKind)} data-role="trust-kind">
              {KINDS.map(([k, label]) => (
                <option key={k} value={k}>
                  {t(label)}
                </option>
              ))}
            </select>
          </label>
          <label class="field">
            <span>{t("gate.value")}</span>
            <input class="mono" value={value} onInput={(e) => setValue(e.currentTarget.value)} data-role="trust-value" />
          </label>
          <button type="submit" class="btn" disabled={!value.trim()}>
            {t("gate.add")}
          </button>
        </form>
        {kind === "host" ? (
          <small class="muted block" data-role="trust-host-hint">
            {t("gate.hostHint")}
          </small>
        ) : null}
      </section>

      <section class="card" data-role="untrusted-folders">
        <h2 class="card-title">{t("gate.untrustedFolders")}</h2>
        <p class="muted">{t("gate.untrustedHint")}</p>
        {guard.untrustedFolders.length === 0 ? <p class="muted">{t("gate.untrustedEmpty")}</p> : null}
        <ul class="plain-list">
          {guard.untrustedFolders.map((f) => (
            <li key={f} class="row">
              <span class="mono">{f}</span>
              <button
                type="button"
                class="btn btn--ghost btn--small"
                onClick={() => void save({ ...guard, untrustedFolders: guard.untrustedFolders.filter((x) => x !== f) })}
              >
                {t("common.remove")}
              </button>
            </li>
          ))}
        </ul>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            addFolder(folder);
          }}
        >
          <input
            class="mono"
            value={folder}
            onInput={(e) => setFolder(e.currentTarget.value)}
            aria-label={t("gate.kindFolder")}
            data-role="untrusted-value"
          />
          <button type="button" class="btn" onClick={pick}>
            {t("gate.pickFolder")}
          </button>
          <button type="submit" class="btn" disabled={!folder.trim()}>
            {t("gate.add")}
          </button>
        </form>
      </section>

      <WrittenFiles />

      <section class="card">
        <h2 class="card-title">{t("autonomy.title")}</h2>
        <p class="muted">{t("gate.allChats")}</p>
        {figures.data ? <AutonomyLine figures={figures.data} /> : null}
      </section>
    </div>
  );
}
