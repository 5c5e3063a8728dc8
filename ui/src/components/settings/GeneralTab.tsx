/** Settings → General: theme, language, attention (notifications), the limits of a turn and the log folder. */
import { useEffect, useState } from "preact/hooks";
import * as api from "../../api";
import { errorMessage } from "../../format";
import { t } from "../../i18n";
import { saveToolSettings } from "../../toolSettingsSave";
import type { Language, SettingsView, Theme } from "../../types";
import { logFolderQuery } from "../../queries";
import { useAction } from "../hooks";
import { useServerState } from "../useServerState";
import { ErrorState, Loading } from "../States";
import type { SharedSettings } from "./shared";
import { SwitchRow } from "./SwitchRow";

export function GeneralTab({ settings, settingsError, onReloadSettings, onSettings }: SharedSettings) {
  const [rounds, setRounds] = useState("");
  const [doom, setDoom] = useState("");
  const [limit, setLimit] = useState("");
  const [retries, setRetries] = useState("");
  const [idle, setIdle] = useState("");
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  // How many changes reached the backend since the tab opened: what a test waits for.
  const [saves, setSaves] = useState(0);

  useEffect(() => {
    if (!settings) return;
    setRounds(String(settings.app.turn.maxRounds));
    setDoom(String(settings.app.turn.doomLoopThreshold));
    setLimit(String(settings.tools.defaultOutputLimit));
    setRetries(String(settings.app.turn.retry.maxRetries));
    setIdle(String(Math.round(settings.app.turn.idleTimeoutMs / 1000)));
  }, [settings === null]);

  if (settingsError !== null) return <ErrorState message={settingsError} onRetry={onReloadSettings} />;
  if (!settings) return <Loading />;

  const saveApp = async (app: SettingsView["app"]) => {
    const previous = settings;
    onSettings({ ...settings, app });
    try {
      await api.setAppSettings(app);
      setSaves((n) => n + 1);
    } catch (e) {
      onSettings(previous);
      setStatus({ ok: false, text: errorMessage(e) });
    }
  };

  const saveLimits = async () => {
    const r = Math.round(Number(rounds));
    const d = Math.round(Number(doom));
    const l = Math.round(Number(limit));
    if (!(r > 0 && d > 0 && l > 0)) {
      setStatus({ ok: false, text: t("general.positive") });
      return;
    }
    const n = Number(retries);
    const idleSecs = Number(idle);
    if (!(Number.isInteger(n) && n >= 0 && n <= 10 && idleSecs >= 5)) {
      setStatus({ ok: false, text: t("general.nonNegative") });
      return;
    }
    const turn = settings.app.turn;
    const next: SettingsView = {
      app: {
        ...settings.app,
        turn: {
          ...turn,
          maxRounds: r,
          doomLoopThreshold: d,
          retry: { ...turn.retry, maxRetries: n },
          idleTimeoutMs: Math.round(idleSecs * 1000),
        },
      },
      tools: { ...settings.tools, defaultOutputLimit: l },
    };
    try {
      await api.setAppSettings(next.app);
      const tools = await saveToolSettings(settings.tools, (newest) => ({ ...newest, defaultOutputLimit: l }));
      onSettings({ ...next, tools });
      setSaves((n) => n + 1);
      setStatus({ ok: true, text: t("common.saved") });
    } catch (e) {
      setStatus({ ok: false, text: errorMessage(e) });
    }
  };

  return (
    <div class="settings-section" data-role="general-settings" data-saves={saves}>
      <section class="card">
        <div class="form-grid">
          <label class="field">
            <span>{t("general.theme")}</span>
            <select value={settings.app.theme} onChange={(e) => void saveApp({ ...settings.app, theme: e.currentTarget.value as Theme })}>
              <option value="system">{t("general.themeSystem")}</option>
              <option value="light">{t("general.themeLight")}</option>
              <option value="dark">{t("general.themeDark")}</option>
            </select>
          </label>
          <label class="field">
            <span>{t("general.language")}</span>
            <select value={settings.app.language} onChange={(e) => void saveApp({ ...settings.app, language: e.currentTarget.value as Language })}>
              <option value="en">English</option>
              <option value="zh-CN">简体中文</option>
            </select>
          </label>
        </div>
      </section>
      <section class="card" aria-labelledby="attention-title">
        <h3 id="attention-title" class="card-title">
          {t("general.attention")}
        </h3>
        <p class="muted small">{t("general.attentionHint")}</p>
        <SwitchRow
          role="notify"
          checked={settings.app.notify}
          onChange={(on) => void saveApp({ ...settings.app, notify: on })}
          title={t("general.notify")}
          hint={t("general.notifyHint")}
        />
        <SwitchRow
          role="attention-hint"
          checked={settings.app.attentionHint}
          onChange={(on) => void saveApp({ ...settings.app, attentionHint: on })}
          title={t("general.attentionHintSwitch")}
          hint={t("general.attentionHintSwitchHint")}
        />
      </section>
      <section class="card" aria-labelledby="views-title">
        <h3 id="views-title" class="card-title">
          {t("settings.mcpViewsTitle")}
        </h3>
        <SwitchRow
          role="mcp-views-all"
          checked={settings.app.mcpViews}
          onChange={(on) => void saveApp({ ...settings.app, mcpViews: on })}
          title={t("settings.mcpViews")}
          hint={t("settings.mcpViewsHint")}
        />
      </section>
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void saveLimits();
        }}
      >
        <div class="form-grid">
          <label class="field">
            <span>{t("general.maxRounds")}</span>
            <input type="number" min="1" value={rounds} onInput={(e) => setRounds(e.currentTarget.value)} />
            <small class="muted">{t("general.maxRoundsHint")}</small>
          </label>
          <label class="field">
            <span>{t("general.doomLoop")}</span>
            <input type="number" min="1" value={doom} onInput={(e) => setDoom(e.currentTarget.value)} />
            <small class="muted">{t("general.doomLoopHint")}</small>
          </label>
          <label class="field">
            <span>{t("general.outputLimit")}</span>
            <input type="number" min="1" value={limit} onInput={(e) => setLimit(e.currentTarget.value)} />
            <small class="muted">{t("general.outputLimitHint")}</small>
          </label>
          <label class="field">
            <span>{t("general.retries")}</span>
            <input type="number" min="0" max="10" value={retries} onInput={(e) => setRetries(e.currentTarget.value)} data-role="max-retries" />
            <small class="muted">{t("general.retriesHint")}</small>
          </label>
          <label class="field">
            <span>{t("general.idleTimeout")}</span>
            <input type="number" min="5" value={idle} onInput={(e) => setIdle(e.currentTarget.value)} data-role="idle-timeout" />
            <small class="muted">{t("general.idleTimeoutHint")}</small>
          </label>
        </div>
        <div class="row">
          <button type="submit" class="btn btn--primary">
            {t("general.save")}
          </button>
          {status ? <span class={status.ok ? "ok-text" : "inline-error"}>{status.text}</span> : null}
        </div>
      </form>
      <LogsCard />
    </div>
  );
}

/** Where the log file is, and a button that opens its folder. */
function LogsCard() {
  const { data: folder, error: loadError } = useServerState(logFolderQuery);
  const { error, run } = useAction();
  return (
    <section class="card" aria-labelledby="logs-title">
      <h3 id="logs-title" class="card-title">
        {t("general.logs")}
      </h3>
      <p class="muted small">{t("general.logsHint")}</p>
      {loadError ? <p class="inline-error">{loadError}</p> : null}
      {folder === null ? <p class="muted small">{t("general.logsNone")}</p> : null}
      {folder ? (
        <div class="row">
          <code class="log-folder" data-role="log-folder">
            {folder}
          </code>
          <button type="button" class="btn" data-role="open-log-folder" onClick={() => void run(() => api.openLogFolder())}>
            {t("general.openLogFolder")}
          </button>
        </div>
      ) : null}
      {error ? <p class="inline-error">{error}</p> : null}
    </section>
  );
}
