import { useEffect, useState } from "preact/hooks";
import * as api from "../api";
import { chatTitle, errorMessage } from "../format";
import { type Key, t } from "../i18n";
import { Icon } from "./icons";
import { McpSettings } from "./McpSettings";
import { ErrorState, Loading } from "./States";
import type {
  ApprovalRecord,
  ChatId,
  ChatRow,
  ExecutionPolicy,
  Language,
  NewProvider,
  Provider,
  ProviderKind,
  ResultPolicy,
  Rule,
  Settings as SettingsData,
  Theme,
  ToolCalling,
  ToolGroupInfo,
  ToolOverride,
} from "../types";

export type SettingsTab = "providers" | "tools" | "mcp" | "rules" | "general";

interface Props {
  tab: SettingsTab;
  onTab: (tab: SettingsTab) => void;
  settings: SettingsData | null;
  onSettings: (s: SettingsData) => void;
  chats: ChatRow[];
  currentChat: ChatId | null;
  onProvidersChanged: () => void;
  onConfirm: (message: string, action: () => Promise<void>) => void;
  onBack: () => void;
}

const TABS: Array<[SettingsTab, Key]> = [
  ["providers", "settings.providers"],
  ["tools", "settings.tools"],
  ["mcp", "settings.mcp"],
  ["rules", "settings.rules"],
  ["general", "settings.general"],
];

export function SettingsView(props: Props) {
  return (
    <section class="settings" aria-label={t("settings.title")}>
      <header class="settings-header">
        <h1>{t("settings.title")}</h1>
        <button type="button" class="btn btn--ghost" onClick={props.onBack}>
          ← {t("settings.back")}
        </button>
      </header>
      <div class="tabs" role="tablist">
        {TABS.map(([id, label]) => (
          <button key={id} type="button" role="tab" aria-selected={props.tab === id} class={`tab${props.tab === id ? " is-active" : ""}`} onClick={() => props.onTab(id)}>
            {t(label)}
          </button>
        ))}
      </div>
      <div class="settings-body">
        {props.tab === "providers" ? <Providers onChanged={props.onProvidersChanged} onConfirm={props.onConfirm} /> : null}
        {props.tab === "tools" ? <ToolsSettings settings={props.settings} onSettings={props.onSettings} /> : null}
        {props.tab === "mcp" ? <McpSettings onConfirm={props.onConfirm} /> : null}
        {props.tab === "rules" ? <RulesAndRecords chats={props.chats} currentChat={props.currentChat} /> : null}
        {props.tab === "general" ? <General settings={props.settings} onSettings={props.onSettings} /> : null}
      </div>
    </section>
  );
}

// ---------------------------------------------------------------- providers

const KIND_DEFAULTS: Record<Exclude<ProviderKind, "demo">, { baseUrl: string; model: string }> = {
  openai: { baseUrl: "https://api.openai.com/v1", model: "gpt-4o-mini" },
  anthropic: { baseUrl: "https://api.anthropic.com", model: "claude-sonnet-4-5" },
};

function kindLabel(kind: ProviderKind): string {
  return kind === "openai" ? t("providers.kindOpenai") : kind === "anthropic" ? t("providers.kindAnthropic") : t("providers.kindDemo");
}

/** The words for how a provider's model calls tools, as the provider form offers them. */
export function toolCallingKey(c: ToolCalling): Key {
  switch (c) {
    case "native":
      return "providers.toolCallingNative";
    case "text":
      return "providers.toolCallingText";
  }
}

/** Reads the tool-calling select; anything else is the default, native. */
function parseToolCalling(value: string): ToolCalling {
  return value === "text" ? "text" : "native";
}

function Providers({ onChanged, onConfirm }: { onChanged: () => void; onConfirm: Props["onConfirm"] }) {
  const [providers, setProviders] = useState<Provider[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api
      .listProviders()
      .then((p) => {
        setProviders(p);
        setError(null);
      })
      .catch((e: unknown) => setError(errorMessage(e)));
  useEffect(() => void load(), []);
  const changed = () => {
    void load();
    onChanged();
  };

  return (
    <div class="settings-section">
      <p class="muted">{t("providers.intro")}</p>
      {error ? <ErrorState message={error} /> : null}
      {!providers && !error ? <Loading /> : null}
      {providers && providers.length === 0 ? <p class="empty-note">{t("providers.none")}</p> : null}
      {providers?.map((p) => (
        <ProviderCard
          key={p.id}
          provider={p}
          onChanged={changed}
          onRemove={() =>
            onConfirm(t("providers.confirmRemove", { name: p.name }), async () => {
              await api.removeProvider(p.id);
              changed();
            })
          }
        />
      ))}
      <AddProvider onAdded={changed} />
    </div>
  );
}

function ProviderCard({ provider, onChanged, onRemove }: { provider: Provider; onChanged: () => void; onRemove: () => void }) {
  const [key, setKey] = useState("");
  const [editingKey, setEditingKey] = useState(!provider.hasKey);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const [testing, setTesting] = useState(false);
  const [keyError, setKeyError] = useState<string | null>(null);

  const saveKey = async () => {
    if (!key.trim()) return;
    try {
      await api.saveProviderKey(provider.id, key.trim());
      setKey("");
      setKeyError(null);
      setEditingKey(false);
      onChanged();
    } catch (e) {
      setKeyError(errorMessage(e));
    }
  };
  const test = async () => {
    setTesting(true);
    setStatus(null);
    try {
      const models = await api.listModels(provider.id);
      setStatus({ ok: true, text: t("providers.testOk", { count: models.length }) });
    } catch (e) {
      setStatus({ ok: false, text: t("providers.testFailed", { message: errorMessage(e) }) });
    } finally {
      setTesting(false);
    }
  };

  return (
    <div class="card provider-card" data-provider={provider.id}>
      <div class="card-header">
        <div>
          <h3 class="card-title">{provider.name}</h3>
          <div class="muted small">
            {kindLabel(provider.kind)} · <code>{provider.baseUrl}</code> · <code>{provider.defaultModel}</code>
            {provider.toolCalling === "text" ? <span data-role="text-tool-calls"> · {t("providers.textToolCalls")}</span> : null}
          </div>
        </div>
        <button type="button" class="btn btn--danger-outline btn--small" onClick={onRemove}>
          {t("common.remove")}
        </button>
      </div>
      {provider.kind !== "demo" ? (
        <div class="row key-row">
          <span class="field-label">{t("providers.key")}</span>
          {editingKey ? (
            <form
              class="row grow"
              onSubmit={(e) => {
                e.preventDefault();
                void saveKey();
              }}
            >
              <input
                type="password"
                class="grow"
                autocomplete="off"
                placeholder={t("providers.keyPlaceholder")}
                value={key}
                onInput={(e) => setKey(e.currentTarget.value)}
              />
              <button type="submit" class="btn" disabled={!key.trim()}>
                {t("providers.saveKey")}
              </button>
              {provider.hasKey ? (
                <button type="button" class="btn btn--ghost" onClick={() => setEditingKey(false)}>
                  {t("common.cancel")}
                </button>
              ) : null}
            </form>
          ) : (
            <>
              <span class="key-saved"><Icon name="lock" /> {t("providers.keySaved")}</span>
              <button type="button" class="link-btn" onClick={() => setEditingKey(true)}>
                {t("providers.replaceKey")}
              </button>
            </>
          )}
        </div>
      ) : null}
      {keyError ? <p class="inline-error">{keyError}</p> : null}
      <div class="row">
        <button type="button" class="btn" disabled={testing} onClick={() => void test()}>
          {testing ? t("providers.testing") : t("providers.test")}
        </button>
        {status ? <span class={status.ok ? "ok-text" : "inline-error"}>{status.text}</span> : null}
      </div>
    </div>
  );
}

function AddProvider({ onAdded }: { onAdded: () => void }) {
  const [kind, setKind] = useState<"openai" | "anthropic">("openai");
  const [name, setName] = useState("");
  const [baseUrl, setBaseUrl] = useState(KIND_DEFAULTS.openai.baseUrl);
  const [model, setModel] = useState(KIND_DEFAULTS.openai.model);
  const [toolCalling, setToolCalling] = useState<ToolCalling>("native");
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const pickKind = (k: "openai" | "anthropic") => {
    const old = KIND_DEFAULTS[kind];
    if (baseUrl === old.baseUrl || !baseUrl) setBaseUrl(KIND_DEFAULTS[k].baseUrl);
    if (model === old.model || !model) setModel(KIND_DEFAULTS[k].model);
    setKind(k);
  };

  const submit = async () => {
    if (!name.trim() || !baseUrl.trim() || !model.trim()) {
      setError(t("providers.required"));
      return;
    }
    setBusy(true);
    try {
      const provider: NewProvider = { kind, name: name.trim(), baseUrl: baseUrl.trim(), defaultModel: model.trim(), toolCalling };
      const added = await api.addProvider(provider);
      if (key.trim()) await api.saveProviderKey(added.id, key.trim());
      setName("");
      setKey("");
      setToolCalling("native");
      setError(null);
      onAdded();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="card add-provider"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h3 class="card-title">{t("providers.add")}</h3>
      <div class="form-grid">
        <label class="field">
          <span>{t("providers.kind")}</span>
          <select value={kind} onChange={(e) => pickKind(e.currentTarget.value as "openai" | "anthropic")}>
            <option value="openai">{t("providers.kindOpenai")}</option>
            <option value="anthropic">{t("providers.kindAnthropic")}</option>
          </select>
        </label>
        <label class="field">
          <span>{t("providers.name")}</span>
          <input value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder={kind === "openai" ? "OpenAI" : "Anthropic"} />
        </label>
        <label class="field">
          <span>{t("providers.baseUrl")}</span>
          <input class="mono" value={baseUrl} onInput={(e) => setBaseUrl(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>{t("providers.model")}</span>
          <input class="mono" value={model} onInput={(e) => setModel(e.currentTarget.value)} />
        </label>
        <label class="field field--wide">
          <span>{t("providers.toolCalling")}</span>
          <select value={toolCalling} onChange={(e) => setToolCalling(parseToolCalling(e.currentTarget.value))} data-role="tool-calling">
            <option value="native">{t(toolCallingKey("native"))}</option>
            <option value="text">{t(toolCallingKey("text"))}</option>
          </select>
        </label>
        <label class="field field--wide">
          <span>{t("providers.key")}</span>
          <input type="password" autocomplete="off" value={key} placeholder={t("providers.keyPlaceholder")} onInput={(e) => setKey(e.currentTarget.value)} />
        </label>
      </div>
      {error ? <p class="inline-error">{error}</p> : null}
      <div class="row">
        <button type="submit" class="btn btn--primary" disabled={busy}>
          {t("providers.add")}
        </button>
      </div>
    </form>
  );
}

// ---------------------------------------------------------------- tools

const EXEC: ExecutionPolicy[] = ["auto", "ask-once", "ask-always", "deny"];
const RESULT: ResultPolicy[] = ["never", "on-error", "always"];

/** A policy override: "Default (the tool's own policy)" or one of `options`. */
function PolicySelect<P extends ExecutionPolicy | ResultPolicy>(props: {
  options: P[];
  value: P | undefined;
  fallback: P;
  pill?: boolean;
  onChange: (value: P | undefined) => void;
}) {
  const { options, value, fallback, pill, onChange } = props;
  return (
    <select
      class={pill ? `policy-select pill--${value ?? fallback}` : undefined}
      value={value ?? ""}
      onChange={(e) => onChange((e.currentTarget.value || undefined) as P | undefined)}
    >
      <option value="">{t("toolsettings.default", { value: t(`policy.${fallback}` as Key) })}</option>
      {options.map((p) => (
        <option key={p} value={p}>
          {t(`policy.${p}` as Key)}
        </option>
      ))}
    </select>
  );
}

function ToolsSettings({ settings, onSettings }: { settings: SettingsData | null; onSettings: (s: SettingsData) => void }) {
  const [groups, setGroups] = useState<ToolGroupInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [flash, setFlash] = useState<string | null>(null);

  useEffect(() => {
    api
      .listToolGroups()
      .then(setGroups)
      .catch((e: unknown) => setError(errorMessage(e)));
  }, []);

  if (error) return <ErrorState message={error} />;
  if (!groups || !settings) return <Loading />;
  const tools = settings.tools;

  const save = (next: SettingsData["tools"]) => {
    const previous = settings;
    onSettings({ ...settings, tools: next });
    api
      .setToolSettings(next)
      .then(() => {
        setFlash(t("toolsettings.saved"));
        setTimeout(() => setFlash(null), 1500);
      })
      .catch((e: unknown) => {
        onSettings(previous);
        setFlash(errorMessage(e));
      });
  };
  const setOverride = (tool: string, patch: { [K in keyof ToolOverride]?: ToolOverride[K] | undefined }) => {
    const current: ToolOverride = { ...(tools.tools[tool] ?? {}) };
    for (const [k, v] of Object.entries(patch) as Array<[keyof ToolOverride, unknown]>) {
      if (v === undefined) delete current[k];
      else (current as Record<string, unknown>)[k] = v;
    }
    const all = { ...tools.tools };
    if (Object.keys(current).length) all[tool] = current;
    else delete all[tool];
    save({ ...tools, tools: all });
  };
  const numberOrUndefined = (v: string, scale = 1): number | undefined => {
    const n = Number(v);
    return v.trim() === "" || !Number.isFinite(n) || n <= 0 ? undefined : Math.round(n * scale);
  };

  return (
    <div class="settings-section">
      <p class="muted">
        {t("toolsettings.intro")} {flash ? <span class="ok-text">{flash}</span> : null}
      </p>
      {groups.map((g) => {
        const groupOn = tools.groups[g.name] ?? g.enabled;
        return (
          <section class="card" key={g.name} data-group={g.name}>
            <div class="card-header">
              <label class="switch-row">
                <input type="checkbox" class="switch" checked={groupOn} onChange={(e) => save({ ...tools, groups: { ...tools.groups, [g.name]: e.currentTarget.checked } })} />
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
                            options={EXEC}
                            value={o.executionPolicy}
                            fallback={tool.defaultExecutionPolicy ?? tool.executionPolicy}
                            pill
                            onChange={(v) => setOverride(tool.name, { executionPolicy: v })}
                          />
                        </td>
                        <td>
                          <PolicySelect
                            options={RESULT}
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

// ---------------------------------------------------------------- rules and records

function RulesAndRecords({ chats, currentChat }: { chats: ChatRow[]; currentChat: ChatId | null }) {
  const [rules, setRules] = useState<Rule[] | null>(null);
  const [records, setRecords] = useState<ApprovalRecord[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = () => {
    api
      .listRules()
      .then(setRules)
      .catch((e: unknown) => setError(errorMessage(e)));
    if (currentChat !== null) {
      api
        .listRecords(currentChat)
        .then(setRecords)
        .catch((e: unknown) => setError(errorMessage(e)));
    }
  };
  useEffect(load, [currentChat]);
  const act = (p: Promise<void>) => void p.then(load).catch((e: unknown) => setError(errorMessage(e)));
  const titleOf = (id: ChatId) => {
    const chat = chats.find((c) => c.id === id);
    return chat ? chatTitle(chat) : `#${id}`;
  };
  const current = currentChat !== null ? chats.find((c) => c.id === currentChat) : undefined;

  return (
    <div class="settings-section">
      {error ? <ErrorState message={error} /> : null}
      <section class="card">
        <h3 class="card-title">{t("rules.title")}</h3>
        {!rules ? <Loading /> : null}
        {rules && rules.length === 0 ? <p class="empty-note">{t("rules.none")}</p> : null}
        {rules && rules.length > 0 ? (
          <table class="tools">
            <thead>
              <tr>
                <th>{t("rules.tool")}</th>
                <th>{t("rules.pattern")}</th>
                <th>{t("rules.action")}</th>
                <th>{t("rules.scope")}</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rules.map((r) => (
                <tr key={r.id} data-rule={r.id}>
                  <td>
                    <code>{r.tool}</code>
                  </td>
                  <td>{r.pattern ? <code>{r.pattern}</code> : <span class="muted">{t("rules.anyArgs")}</span>}</td>
                  <td>
                    <span class={`pill pill--${r.action === "allow" ? "auto" : r.action === "deny" ? "deny" : "ask-always"}`}>{t(`rules.action.${r.action}` as Key)}</span>
                  </td>
                  <td>{r.scope.type === "global" ? t("rules.global") : t("rules.chat", { title: titleOf(r.scope.chat) })}</td>
                  <td class="right">
                    <button type="button" class="btn btn--small" onClick={() => act(api.revokeRule(r.id))}>
                      {t("common.revoke")}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
      <section class="card">
        <h3 class="card-title">
          {t("records.title")} {current ? <span class="muted">— {chatTitle(current)}</span> : null}
        </h3>
        {currentChat === null ? <p class="empty-note">{t("records.noChat")}</p> : null}
        {currentChat !== null && !records ? <Loading /> : null}
        {records && records.length === 0 ? <p class="empty-note">{t("records.none")}</p> : null}
        {records && records.length > 0 ? (
          <table class="tools">
            <tbody>
              {records.map((r) => (
                <tr key={r.tool + r.argsHash}>
                  <td>
                    <code>{r.tool}</code>
                  </td>
                  <td class="mono small record-args">{typeof r.args === "string" ? r.args : JSON.stringify(r.args)}</td>
                  <td class="small record-workspace" data-role="record-workspace">
                    {r.workspace !== null ? t("records.workspace", { folder: r.workspace }) : <span class="muted">{t("records.noFolder")}</span>}
                  </td>
                  <td>
                    <span class={`pill pill--${r.allowed ? "auto" : "deny"}`}>{r.allowed ? t("records.allowed") : t("records.denied")}</span>
                  </td>
                  <td class="right">
                    <button type="button" class="btn btn--small" onClick={() => act(api.revokeRecord(r.chat, r.tool, r.argsHash))}>
                      {t("common.revoke")}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
    </div>
  );
}

// ---------------------------------------------------------------- general

function General({ settings, onSettings }: { settings: SettingsData | null; onSettings: (s: SettingsData) => void }) {
  const [rounds, setRounds] = useState("");
  const [doom, setDoom] = useState("");
  const [limit, setLimit] = useState("");
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);

  useEffect(() => {
    if (!settings) return;
    setRounds(String(settings.app.turn.maxRounds));
    setDoom(String(settings.app.turn.doomLoopThreshold));
    setLimit(String(settings.tools.defaultOutputLimit));
  }, [settings === null]);

  if (!settings) return <Loading />;

  const saveApp = async (app: SettingsData["app"]) => {
    const previous = settings;
    onSettings({ ...settings, app });
    try {
      await api.setAppSettings(app);
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
    const next: SettingsData = {
      app: { ...settings.app, turn: { ...settings.app.turn, maxRounds: r, doomLoopThreshold: d } },
      tools: { ...settings.tools, defaultOutputLimit: l },
    };
    try {
      await api.setAppSettings(next.app);
      await api.setToolSettings(next.tools);
      onSettings(next);
      setStatus({ ok: true, text: t("common.saved") });
    } catch (e) {
      setStatus({ ok: false, text: errorMessage(e) });
    }
  };

  return (
    <div class="settings-section">
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
        </div>
        <div class="row">
          <button type="submit" class="btn btn--primary">
            {t("general.save")}
          </button>
          {status ? <span class={status.ok ? "ok-text" : "inline-error"}>{status.text}</span> : null}
        </div>
      </form>
    </div>
  );
}
