/** Settings → Providers: the configured model providers, their keys, and a form to add one. */
import { useState } from "preact/hooks";
import * as api from "../../api";
import { errorMessage } from "../../format";
import { type Key, t } from "../../i18n";
import type { LocalServer, ProviderConfig, ProviderInput, ProviderKind, ProviderOptions, RequestStyle, ToolCalling } from "../../types";
import { localServersQuery, PROVIDERS, providersQuery } from "../../queries";
import { invalidate } from "../../serverState";
import { useAction } from "../hooks";
import { useForm } from "../useForm";
import { useServerState } from "../useServerState";
import { Icon } from "../icons";
import { LoadStatus } from "../States";
import type { Confirm } from "./shared";

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

/** Reads the providers again wherever they are shown (the chat header's model picker, the presets). */
function changed(): void {
  void invalidate(PROVIDERS);
}

export function ProvidersTab({ onConfirm }: { onConfirm: Confirm }) {
  const providers = useServerState(providersQuery);

  return (
    <div class="settings-section">
      <p class="muted">{t("providers.intro")}</p>
      <LoadStatus load={providers} />
      {providers.data && providers.data.length === 0 ? <p class="empty-note">{t("providers.none")}</p> : null}
      {providers.data?.map((p) => (
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
      <LocalServers configured={providers.data ?? []} onAdded={changed} />
      <AddProvider onAdded={changed} />
    </div>
  );
}

function ProviderCard({ provider, onChanged, onRemove }: { provider: ProviderConfig; onChanged: () => void; onRemove: () => void }) {
  const [editing, setEditing] = useState(false);
  const [key, setKey] = useState("");
  const [editingKey, setEditingKey] = useState(!provider.hasKey);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const [testing, setTesting] = useState(false);
  const { error: keyError, run } = useAction();

  const saveKey = async () => {
    if (!key.trim()) return;
    if (await run(() => api.saveProviderKey(provider.id, key.trim()))) {
      setKey("");
      setEditingKey(false);
      onChanged();
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
            {provider.options.requestStyle === "reasoning" ? <span> · {t("providers.reasoningStyle")}</span> : null}
            {provider.options.thinkingBudget != null ? (
              <span data-role="thinking-on"> · {t("providers.thinkingOn", { budget: provider.options.thinkingBudget })}</span>
            ) : null}
          </div>
        </div>
        <div class="row">
          {provider.kind !== "demo" && !editing ? (
            <button type="button" class="btn btn--small" onClick={() => setEditing(true)} data-role="edit-provider">
              {t("providers.edit")}
            </button>
          ) : null}
          <button type="button" class="btn btn--danger-outline btn--small" onClick={onRemove}>
            {t("common.remove")}
          </button>
        </div>
      </div>
      {editing ? (
        <ProviderForm
          initial={provider}
          title={t("providers.edit")}
          submitLabel={t("providers.saveChanges")}
          onCancel={() => setEditing(false)}
          onSubmit={async (input) => {
            await api.updateProvider(provider.id, input);
            setEditing(false);
            onChanged();
          }}
        />
      ) : null}
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
              <span class="key-saved">
                <Icon name="lock" /> {t("providers.keySaved")}
              </span>
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

/** The words for a request style, as the provider form offers them. */
function requestStyleKey(style: RequestStyle): Key {
  switch (style) {
    case "auto":
      return "providers.requestStyleAuto";
    case "classic":
      return "providers.requestStyleClassic";
    case "reasoning":
      return "providers.requestStyleReasoning";
  }
}

function parseRequestStyle(value: string): RequestStyle {
  return value === "classic" || value === "reasoning" ? value : "auto";
}

/** The smallest thinking budget Anthropic accepts. */
const MIN_THINKING_BUDGET = 1024;

type EditableKind = "openai" | "anthropic";

/** The provider form's fields, as typed. */
interface ProviderFields {
  kind: EditableKind;
  name: string;
  baseUrl: string;
  model: string;
  toolCalling: ToolCalling;
  requestStyle: RequestStyle;
  thinking: boolean;
  /** The thinking budget in tokens, as typed. */
  budget: string;
  /** A new provider's API key (an existing one's is changed on its card). */
  key: string;
}

/** The fields for a provider being edited, or for a new one (OpenAI-compatible, with that kind's defaults). */
function providerFields(initial: ProviderConfig | null): ProviderFields {
  const kind: EditableKind = initial?.kind === "anthropic" ? "anthropic" : "openai";
  return {
    kind,
    name: initial?.name ?? "",
    baseUrl: initial?.baseUrl ?? KIND_DEFAULTS[kind].baseUrl,
    model: initial?.defaultModel ?? KIND_DEFAULTS[kind].model,
    toolCalling: initial?.toolCalling ?? "native",
    requestStyle: initial?.options.requestStyle ?? "auto",
    thinking: initial?.options.thinkingBudget != null,
    budget: String(initial?.options.thinkingBudget ?? 4096),
    key: "",
  };
}

/**
 * The provider form: adding one (with its key) or editing one (the key is changed on the card).
 * Options appear for the kind they apply to: request parameters for OpenAI-compatible servers,
 * extended thinking for Anthropic.
 */
function ProviderForm({
  initial,
  title,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial: ProviderConfig | null;
  title: string;
  submitLabel: string;
  onSubmit: (input: ProviderInput, key: string) => Promise<void>;
  onCancel?: () => void;
}) {
  const { values: f, set } = useForm(() => providerFields(initial));
  const { kind } = f;
  const { error, busy, run, setError } = useAction();

  const pickKind = (k: EditableKind) => {
    const old = KIND_DEFAULTS[kind];
    if (f.baseUrl === old.baseUrl || !f.baseUrl) set("baseUrl", KIND_DEFAULTS[k].baseUrl);
    if (f.model === old.model || !f.model) set("model", KIND_DEFAULTS[k].model);
    set("kind", k);
  };

  const submit = async () => {
    if (!f.name.trim() || !f.baseUrl.trim() || !f.model.trim()) {
      setError(t("providers.required"));
      return;
    }
    const thinkingBudget = Math.round(Number(f.budget));
    if (kind === "anthropic" && f.thinking && !(thinkingBudget >= MIN_THINKING_BUDGET)) {
      setError(t("providers.thinkingHint"));
      return;
    }
    const options: ProviderOptions =
      kind === "anthropic" ? { requestStyle: "auto", ...(f.thinking ? { thinkingBudget } : {}) } : { requestStyle: f.requestStyle };
    const input: ProviderInput = {
      kind,
      name: f.name.trim(),
      baseUrl: f.baseUrl.trim(),
      defaultModel: f.model.trim(),
      toolCalling: kind === "anthropic" ? "native" : f.toolCalling,
      options,
    };
    if (await run(() => onSubmit(input, f.key.trim()))) {
      set("key", "");
    }
  };

  return (
    <form
      class={initial ? "provider-edit" : "card add-provider"}
      data-role={initial ? "provider-edit" : "add-provider"}
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h3 class="card-title">{title}</h3>
      <div class="form-grid">
        <label class="field">
          <span>{t("providers.kind")}</span>
          <select value={kind} disabled={initial !== null} onChange={(e) => pickKind(e.currentTarget.value === "anthropic" ? "anthropic" : "openai")}>
            <option value="openai">{t("providers.kindOpenai")}</option>
            <option value="anthropic">{t("providers.kindAnthropic")}</option>
          </select>
        </label>
        <label class="field">
          <span>{t("providers.name")}</span>
          <input value={f.name} onInput={(e) => set("name", e.currentTarget.value)} placeholder={kind === "openai" ? "OpenAI" : "Anthropic"} />
        </label>
        <label class="field">
          <span>{t("providers.baseUrl")}</span>
          <input class="mono" value={f.baseUrl} onInput={(e) => set("baseUrl", e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>{t("providers.model")}</span>
          <input class="mono" value={f.model} onInput={(e) => set("model", e.currentTarget.value)} />
        </label>
        {kind === "openai" ? (
          <>
            <label class="field field--wide">
              <span>{t("providers.toolCalling")}</span>
              <select value={f.toolCalling} onChange={(e) => set("toolCalling", parseToolCalling(e.currentTarget.value))} data-role="tool-calling">
                <option value="native">{t(toolCallingKey("native"))}</option>
                <option value="text">{t(toolCallingKey("text"))}</option>
              </select>
            </label>
            <label class="field field--wide">
              <span>{t("providers.requestStyle")}</span>
              <select
                value={f.requestStyle}
                onChange={(e) => set("requestStyle", parseRequestStyle(e.currentTarget.value))}
                data-role="request-style"
              >
                {(["auto", "classic", "reasoning"] as const).map((style) => (
                  <option key={style} value={style}>
                    {t(requestStyleKey(style))}
                  </option>
                ))}
              </select>
            </label>
          </>
        ) : (
          <div class="field field--wide">
            <label class="check">
              <input type="checkbox" checked={f.thinking} onChange={(e) => set("thinking", e.currentTarget.checked)} data-role="thinking" />
              <span>{t("providers.thinking")}</span>
            </label>
            {f.thinking ? (
              <label class="field">
                <span>{t("providers.thinkingBudget")}</span>
                <input
                  type="number"
                  min={MIN_THINKING_BUDGET}
                  step="1024"
                  value={f.budget}
                  onInput={(e) => set("budget", e.currentTarget.value)}
                  data-role="thinking-budget"
                />
              </label>
            ) : null}
            <small class="muted">{t("providers.thinkingHint")}</small>
          </div>
        )}
        {initial ? null : (
          <label class="field field--wide">
            <span>{t("providers.key")}</span>
            <input
              type="password"
              autocomplete="off"
              value={f.key}
              placeholder={t("providers.keyPlaceholder")}
              onInput={(e) => set("key", e.currentTarget.value)}
            />
          </label>
        )}
      </div>
      {error ? <p class="inline-error">{error}</p> : null}
      <div class="row">
        <button type="submit" class="btn btn--primary" disabled={busy}>
          {submitLabel}
        </button>
        {onCancel ? (
          <button type="button" class="btn btn--ghost" onClick={onCancel}>
            {t("common.cancel")}
          </button>
        ) : null}
      </div>
    </form>
  );
}

function AddProvider({ onAdded }: { onAdded: () => void }) {
  // A new form after each add: the fields start from the defaults again.
  const [generation, setGeneration] = useState(0);
  return (
    <ProviderForm
      key={generation}
      initial={null}
      title={t("providers.add")}
      submitLabel={t("providers.add")}
      onSubmit={async (input, key) => {
        const row = await api.addProvider(input);
        if (key) await api.saveProviderKey(row.id, key);
        setGeneration((g) => g + 1);
        onAdded();
      }}
    />
  );
}

/** Ollama, LM Studio and llama.cpp servers running here, each added with one click. */
function LocalServers({ configured, onAdded }: { configured: ProviderConfig[]; onAdded: () => void }) {
  const found = useServerState(localServersQuery);
  const { error, run } = useAction();
  const [picked, setPicked] = useState<Record<string, string>>({});
  const known = new Set(configured.map((p) => p.baseUrl.replace(/\/+$/, "")));
  const add = (server: LocalServer) =>
    run(async () => {
      await api.addProvider({
        kind: "openai",
        name: server.name,
        baseUrl: server.baseUrl,
        defaultModel: picked[server.baseUrl] ?? server.models[0] ?? "",
        toolCalling: "native",
        options: { requestStyle: "auto" },
      });
      onAdded();
    });
  return (
    <section class="card local-servers" data-role="local-servers">
      <div class="card-header">
        <h3 class="card-title">{t("providers.local")}</h3>
        <button type="button" class="btn btn--small" disabled={found.loading} onClick={() => void found.reload()}>
          {found.loading ? t("providers.localSearching") : t("providers.localSearch")}
        </button>
      </div>
      <LoadStatus load={found} />
      {found.data && found.data.length === 0 ? <p class="muted small">{t("providers.localNone")}</p> : null}
      {found.data?.map((server) => {
        const added = known.has(server.baseUrl);
        return (
          <div key={server.baseUrl} class="row local-server" data-server={server.name}>
            <div class="grow">
              <strong>{server.name}</strong> <code class="small">{server.baseUrl}</code>
              <div class="muted small">
                {server.models.length ? t("providers.localModels", { count: server.models.length }) : t("providers.localNoModels")}
              </div>
            </div>
            {server.models.length > 1 && !added ? (
              <select
                aria-label={t("providers.model")}
                value={picked[server.baseUrl] ?? server.models[0]}
                onChange={(e) => {
                  const model = e.currentTarget.value;
                  setPicked((p) => ({ ...p, [server.baseUrl]: model }));
                }}
              >
                {server.models.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            ) : null}
            {added ? (
              <span class="ok-text">{t("providers.localAdded")}</span>
            ) : (
              <button type="button" class="btn btn--primary btn--small" disabled={!server.models.length} onClick={() => void add(server)}>
                {t("providers.localAdd", { name: server.name })}
              </button>
            )}
          </div>
        );
      })}
      {error ? <p class="inline-error">{error}</p> : null}
    </section>
  );
}
