/** Settings → Providers: the configured model providers, their keys, and a form to add one. */
import { useState } from "preact/hooks";
import * as api from "../../api";
import { errorMessage } from "../../format";
import { type Key, t } from "../../i18n";
import type { ProviderConfig, ProviderInput, ProviderKind, ToolCalling } from "../../types";
import { useAction, useLoad } from "../hooks";
import { Icon } from "../icons";
import { LoadStatus } from "../States";
import type { Confirm } from "./Settings";

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

export function ProvidersTab({ onChanged, onConfirm }: { onChanged: () => void; onConfirm: Confirm }) {
  const providers = useLoad(() => api.listProviders(), []);
  const changed = () => {
    void providers.reload();
    onChanged();
  };

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
      <AddProvider onAdded={changed} />
    </div>
  );
}

function ProviderCard({ provider, onChanged, onRemove }: { provider: ProviderConfig; onChanged: () => void; onRemove: () => void }) {
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
  const { error, busy, run, setError } = useAction();

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
    const provider: ProviderInput = { kind, name: name.trim(), baseUrl: baseUrl.trim(), defaultModel: model.trim(), toolCalling };
    const added = await run(async () => {
      const row = await api.addProvider(provider);
      if (key.trim()) await api.saveProviderKey(row.id, key.trim());
    });
    if (!added) return;
    setName("");
    setKey("");
    setToolCalling("native");
    onAdded();
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
