/** Settings → Tools: every tool group and tool, with its switch, policies, timeout and output limit. */
import { useRef, useState } from "preact/hooks";
import { type Key, t } from "../../i18n";
import { EXECUTION_POLICIES, executionPolicyKey, RESULT_POLICIES, resultPolicyKey } from "../../policies";
import { effectsWords } from "../../provenance";
import { saveToolSettings } from "../../toolSettingsSave";
import type { ExecutionPolicy, ResultPolicy, ToolEffects, ToolOverride, ToolSettings } from "../../types";
import { toolGroupsQuery } from "../../queries";
import { useAction } from "../hooks";
import { useServerState } from "../useServerState";
import { ErrorState, Loading } from "../States";
import type { SharedSettings } from "./shared";

/** A policy override: "Default (the tool's own policy)" or one of `options`, each in its words (`label`). */
function PolicySelect<P extends ExecutionPolicy | ResultPolicy>(props: {
  options: readonly P[];
  label: (policy: P) => Key;
  value: P | undefined;
  fallback: P;
  pill?: boolean;
  onChange: (value: P | undefined) => void;
}) {
  const { options, label, value, fallback, pill, onChange } = props;
  return (
    <select
      class={pill ? `policy-select pill--${value ?? fallback}` : undefined}
      value={value ?? ""}
      onChange={(e) => onChange((e.currentTarget.value || undefined) as P | undefined)}
    >
      <option value="">{t("toolsettings.default", { value: t(label(fallback)) })}</option>
      {options.map((p) => (
        <option key={p} value={p}>
          {t(label(p))}
        </option>
      ))}
    </select>
  );
}

const EFFECTS: Array<[keyof ToolEffects, Key]> = [
  ["writes", "effects.writes"],
  ["executes", "effects.executes"],
  ["sendsOut", "effects.sendsOut"],
  ["irreversible", "effects.irreversible"],
  ["readsPrivate", "effects.readsPrivate"],
];

/** The target arguments as the user types them: names or pointers, separated by commas. */
function targetsText(targets: string[]): string {
  return targets.map((p) => (p.lastIndexOf("/") === 0 ? p.slice(1) : p)).join(", ");
}

/**
 * What a call of the tool may do (F-81), as the tool says or as the user set it; for an MCP
 * tool whose server's claim nobody confirmed, that it is only a claim and a button to confirm
 * it (SPEC §12). Below, the arguments that name where a call goes.
 */
function EffectsEditor(props: {
  effects: ToolEffects;
  custom: boolean;
  claimed: boolean;
  targets: string[];
  customTargets: boolean;
  onChange: (effects: ToolEffects | undefined) => void;
  onTargets: (targets: string[] | undefined) => void;
}) {
  const { effects, custom, claimed } = props;
  return (
    <details class="tool-effects" data-role="tool-effects">
      <summary>
        {t("tools.effects")}: {effectsWords(effects).join(", ")}
        {custom ? <span class="tag">{t("tools.effectsCustom")}</span> : null}
        {claimed ? (
          <span class="tag tag--warn" data-role="effects-claimed">
            {t("tools.effectsClaimed")}
          </span>
        ) : null}
      </summary>
      {claimed ? (
        <p class="muted small">
          {t("tools.effectsClaimedHint")}{" "}
          <button type="button" class="btn btn--small" data-role="confirm-effects" onClick={() => props.onChange(effects)}>
            {t("tools.effectsConfirm")}
          </button>
        </p>
      ) : null}
      <label class="tool-targets">
        {t("tools.targets")}{" "}
        <input
          type="text"
          value={targetsText(props.targets)}
          placeholder={t("tools.targetsNone")}
          data-role="tool-targets"
          onChange={(e) => {
            const list = e.currentTarget.value
              .split(",")
              .map((x) => x.trim())
              .filter(Boolean);
            props.onTargets(list);
          }}
        />
        {props.customTargets ? (
          <button type="button" class="btn btn--ghost btn--small" onClick={() => props.onTargets(undefined)}>
            {t("tools.effectsDefault")}
          </button>
        ) : null}
      </label>
      <div class="tool-effects-choices">
        {EFFECTS.map(([k, label]) => (
          <label key={k}>
            <input
              type="checkbox"
              checked={effects[k]}
              onChange={(e) => props.onChange({ ...effects, [k]: e.currentTarget.checked })}
              data-effect={k}
            />{" "}
            {t(label)}
          </label>
        ))}
        {custom ? (
          <button type="button" class="btn btn--ghost btn--small" onClick={() => props.onChange(undefined)}>
            {t("tools.effectsDefault")}
          </button>
        ) : null}
      </div>
    </details>
  );
}

export function ToolsTab({ settings, settingsError, onReloadSettings, onSettings }: SharedSettings) {
  const loaded = useServerState(toolGroupsQuery);
  const saving = useAction();
  const [flash, setFlash] = useState<string | null>(null);
  // How many changes have been saved: a test (or anything else) waits for the count to move
  // instead of racing the notice, which clears itself.
  const [saves, setSaves] = useState(0);
  const clearFlash = useRef<ReturnType<typeof setTimeout> | null>(null);

  // Both the tools and the app's settings must be read; either failing is shown, never a spinner forever.
  const error = loaded.error ?? settingsError;
  if (error !== null) {
    const retry = () => {
      if (loaded.error !== null) void loaded.reload();
      if (settingsError !== null) onReloadSettings();
    };
    return <ErrorState message={error} onRetry={retry} />;
  }
  const groups = loaded.data;
  if (!groups || !settings) return <Loading />;
  const tools = settings.tools;

  /** Shows the change at once and saves it applied to the newest settings (never a stale copy
   * of what a review confirmed meanwhile); puts the old settings back if saving fails. */
  const save = (change: (tools: ToolSettings) => ToolSettings) => {
    const previous = settings;
    onSettings({ ...settings, tools: change(tools) });
    setFlash(null);
    void saving
      .run(async () => {
        const saved = await saveToolSettings(tools, change);
        onSettings({ ...previous, tools: saved });
      })
      .then((saved) => {
        if (!saved) {
          onSettings(previous);
          return;
        }
        setSaves((n) => n + 1);
        setFlash(t("toolsettings.saved"));
        // The notice stays a moment after the last save, not after the first of several.
        if (clearFlash.current) clearTimeout(clearFlash.current);
        clearFlash.current = setTimeout(() => setFlash(null), 1500);
      });
  };
  const setOverride = (tool: string, patch: { [K in keyof ToolOverride]?: ToolOverride[K] | undefined }) =>
    save((newest) => {
      const current: ToolOverride = { ...(newest.tools[tool] ?? {}) };
      for (const [k, v] of Object.entries(patch) as Array<[keyof ToolOverride, unknown]>) {
        if (v === undefined) delete current[k];
        else (current as Record<string, unknown>)[k] = v;
      }
      const all = { ...newest.tools };
      if (Object.keys(current).length) all[tool] = current;
      else delete all[tool];
      return { ...newest, tools: all };
    });
  const numberOrUndefined = (v: string, scale = 1): number | undefined => {
    const n = Number(v);
    return v.trim() === "" || !Number.isFinite(n) || n <= 0 ? undefined : Math.round(n * scale);
  };

  return (
    <div class="settings-section" data-role="tool-settings" data-saves={saves}>
      <p class="muted">
        {t("toolsettings.intro")} {flash ? <span class="ok-text">{flash}</span> : null}
        {saving.error ? <span class="inline-error">{saving.error}</span> : null}
      </p>
      {groups.map((g) => {
        const groupOn = tools.groups[g.name] ?? g.enabled;
        return (
          <section class="card" key={g.name} data-group={g.name}>
            <div class="card-header">
              <label class="switch-row">
                <input
                  type="checkbox"
                  class="switch"
                  checked={groupOn}
                  onChange={(e) => {
                    const on = e.currentTarget.checked;
                    save((newest) => ({ ...newest, groups: { ...newest.groups, [g.name]: on } }));
                  }}
                />
                <span>
                  <strong class="card-title">{g.title}</strong> <code class="muted">{g.name}</code>
                  <small class="muted block">{g.description}</small>
                </span>
              </label>
            </div>
            <div class="table-wrap">
              <table class="tools">
                <thead>
                  <tr>
                    <th>{t("toolsettings.tool")}</th>
                    <th>{t("toolsettings.enabled")}</th>
                    <th>{t("toolsettings.execution")}</th>
                    <th>{t("toolsettings.resultReview")}</th>
                    <th>{t("toolsettings.timeout")}</th>
                    <th>{t("toolsettings.outputLimit")}</th>
                  </tr>
                </thead>
                <tbody>
                  {g.tools.map((tool) => {
                    const o = tools.tools[tool.name] ?? {};
                    return (
                      <tr key={tool.name} data-tool={tool.name}>
                        <td>
                          <code class="tool-name">{tool.name}</code>
                          {tool.readOnly ? <span class="tag tag--readonly">{t("toolsettings.readOnly")}</span> : null}
                          <div class="muted small tool-description">{tool.description}</div>
                          <EffectsEditor
                            effects={o.effects ?? tool.defaultEffects}
                            custom={o.effects !== undefined}
                            claimed={tool.effectsClaimed && o.effects === undefined}
                            targets={o.targets ?? tool.defaultTargets}
                            customTargets={o.targets !== undefined}
                            onChange={(effects) => setOverride(tool.name, { effects })}
                            onTargets={(targets) => setOverride(tool.name, { targets })}
                          />
                        </td>
                        <td>
                          <input
                            type="checkbox"
                            class="switch"
                            checked={o.enabled ?? tool.enabled ?? true}
                            onChange={(e) => setOverride(tool.name, { enabled: e.currentTarget.checked })}
                          />
                        </td>
                        <td>
                          <PolicySelect
                            options={EXECUTION_POLICIES}
                            label={executionPolicyKey}
                            value={o.executionPolicy}
                            fallback={tool.defaultExecutionPolicy ?? tool.executionPolicy}
                            pill
                            onChange={(v) => setOverride(tool.name, { executionPolicy: v })}
                          />
                        </td>
                        <td>
                          <PolicySelect
                            options={RESULT_POLICIES}
                            label={resultPolicyKey}
                            value={o.resultPolicy}
                            fallback={tool.defaultResultPolicy ?? tool.resultPolicy}
                            onChange={(v) => setOverride(tool.name, { resultPolicy: v })}
                          />
                        </td>
                        <td>
                          <input
                            type="number"
                            min="1"
                            class="num"
                            value={o.timeoutMs ? String(o.timeoutMs / 1000) : ""}
                            placeholder={tool.timeoutMs ? String(tool.timeoutMs / 1000) : ""}
                            onChange={(e) => setOverride(tool.name, { timeoutMs: numberOrUndefined(e.currentTarget.value, 1000) })}
                          />
                        </td>
                        <td>
                          <input
                            type="number"
                            min="1"
                            class="num"
                            value={o.outputLimit ? String(o.outputLimit) : ""}
                            placeholder={String(tools.defaultOutputLimit)}
                            onChange={(e) => setOverride(tool.name, { outputLimit: numberOrUndefined(e.currentTarget.value) })}
                          />
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          </section>
        );
      })}
    </div>
  );
}
