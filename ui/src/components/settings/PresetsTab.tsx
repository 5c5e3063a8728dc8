/** Settings → Assistants: presets a chat can start from — prompt, model, parameters, tool groups (F-58). */
import { useState } from "preact/hooks";
import * as api from "../../api";
import { t } from "../../i18n";
import type { GroupView, Preset, PresetInput, ProviderConfig } from "../../types";
import { PRESETS, presetsQuery, providersQuery, toolGroupsQuery } from "../../queries";
import { invalidate } from "../../serverState";
import { useAction } from "../hooks";
import { useForm } from "../useForm";
import { useServerState } from "../useServerState";
import { ParamsFields, type ParamsText, ProviderOptions, paramsText, readParams } from "../params";
import { LoadStatus } from "../States";
import type { Confirm } from "./shared";

const EMPTY: PresetInput = { name: "", systemPrompt: "", model: "", params: {}, groups: {} };

/** Reads the presets again wherever they are shown (the New chat menu lists them too). */
function changed(): void {
  void invalidate(PRESETS);
}

export function PresetsTab({ onConfirm }: { onConfirm: Confirm }) {
  const presets = useServerState(presetsQuery);
  const providers = useServerState(providersQuery);
  const groups = useServerState(toolGroupsQuery);
  const [editing, setEditing] = useState<Preset | "new" | null>(null);
  const form = (id: number | null, initial: PresetInput) => (
    <PresetForm
      key={id ?? "new"}
      id={id}
      initial={initial}
      providers={providers.data ?? []}
      groups={groups.data ?? []}
      onDone={() => {
        setEditing(null);
        changed();
      }}
      onCancel={() => setEditing(null)}
    />
  );
  return (
    <div class="settings-section">
      <p class="muted">{t("presets.intro")}</p>
      <LoadStatus load={presets} />
      {presets.data && presets.data.length === 0 && editing === null ? <p class="empty-note">{t("presets.none")}</p> : null}
      {presets.data?.map((p) =>
        editing !== null && editing !== "new" && editing.id === p.id ? (
          form(p.id, p)
        ) : (
          <div key={p.id} class="card preset-card" data-preset={p.name}>
            <div class="card-header">
              <div>
                <h3 class="card-title">{p.name}</h3>
                <div class="muted small">{presetSummary(p, providers.data ?? [], groups.data ?? [])}</div>
              </div>
              <div class="row">
                <button type="button" class="btn btn--small" onClick={() => setEditing(p)}>
                  {t("providers.edit")}
                </button>
                <button
                  type="button"
                  class="btn btn--danger-outline btn--small"
                  onClick={() =>
                    onConfirm(t("presets.confirmRemove", { name: p.name }), async () => {
                      await api.deletePreset(p.id);
                      changed();
                    })
                  }
                >
                  {t("common.remove")}
                </button>
              </div>
            </div>
            {p.systemPrompt ? <p class="preset-prompt">{p.systemPrompt}</p> : null}
          </div>
        ),
      )}
      {editing === "new" ? (
        form(null, EMPTY)
      ) : (
        <div class="row">
          <button type="button" class="btn btn--primary" onClick={() => setEditing("new")} data-role="add-preset">
            {t("presets.add")}
          </button>
        </div>
      )}
    </div>
  );
}

/** One line about a preset: its model and provider, its parameters, its tool groups by title. */
function presetSummary(p: PresetInput, providers: ProviderConfig[], groups: GroupView[]): string {
  const provider = providers.find((x) => x.id === p.providerId)?.name ?? t("presets.firstProvider");
  const parts = [t("presets.modelOn", { model: p.model || t("presets.defaultModel"), provider })];
  if (p.params.temperature != null) parts.push(t("presets.temperatureIs", { value: p.params.temperature }));
  if (p.params.maxTokens != null) parts.push(t("presets.maxTokensIs", { value: p.params.maxTokens }));
  const title = (name: string) => groups.find((g) => g.name === name)?.title ?? name;
  const named = (on: boolean) =>
    Object.entries(p.groups)
      .filter(([, v]) => v === on)
      .map(([g]) => title(g))
      .join(", ");
  if (named(true)) parts.push(t("presets.groupsOn", { groups: named(true) }));
  if (named(false)) parts.push(t("presets.groupsOff", { groups: named(false) }));
  return parts.join(" · ");
}

/** The preset form's fields, as typed. */
interface PresetFields {
  name: string;
  prompt: string;
  /** The provider's id, or "" for the first provider. */
  provider: string;
  model: string;
  params: ParamsText;
  /** The tool groups the preset turns on or off; a group not named follows the app. */
  groups: Record<string, boolean>;
}

function presetFields(initial: PresetInput): PresetFields {
  return {
    name: initial.name,
    prompt: initial.systemPrompt,
    provider: initial.providerId == null ? "" : String(initial.providerId),
    model: initial.model,
    params: paramsText(initial.params),
    groups: { ...initial.groups },
  };
}

/** The form that adds a preset or edits one. */
function PresetForm(props: {
  id: number | null;
  initial: PresetInput;
  providers: ProviderConfig[];
  groups: GroupView[];
  onDone: () => void;
  onCancel: () => void;
}) {
  const { values: f, set } = useForm(() => presetFields(props.initial));
  const { groups } = f;
  const { error, busy, run, setError } = useAction();

  const submit = async () => {
    if (!f.name.trim()) {
      setError(t("presets.nameRequired"));
      return;
    }
    const read = readParams(f.params);
    if ("error" in read) {
      setError(t(read.error));
      return;
    }
    const input: PresetInput = {
      name: f.name.trim(),
      systemPrompt: f.prompt,
      model: f.model.trim(),
      params: read.params,
      groups,
      ...(f.provider ? { providerId: Number(f.provider) } : {}),
    };
    if (await run(() => api.savePreset(props.id, input).then(() => undefined))) props.onDone();
  };

  /** A group's three states: follow the app (absent), on, off. */
  const groupState = (g: string): string => (g in groups ? (groups[g] ? "on" : "off") : "default");
  const setGroup = (g: string, v: string) =>
    set("groups", (old) => {
      const next = { ...old };
      if (v === "default") delete next[g];
      else next[g] = v === "on";
      return next;
    });

  return (
    <form
      class="card preset-form"
      data-role="preset-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h3 class="card-title">{props.id === null ? t("presets.add") : t("providers.edit")}</h3>
      <div class="form-grid">
        <label class="field">
          <span>{t("presets.name")}</span>
          <input
            value={f.name}
            onInput={(e) => set("name", e.currentTarget.value)}
            placeholder={t("presets.namePlaceholder")}
            data-role="preset-name"
          />
        </label>
        <label class="field">
          <span>{t("presets.provider")}</span>
          <select value={f.provider} onChange={(e) => set("provider", e.currentTarget.value)}>
            <option value="">{t("presets.firstProvider")}</option>
            <ProviderOptions providers={props.providers} />
          </select>
        </label>
        <label class="field">
          <span>{t("providers.model")}</span>
          <input class="mono" value={f.model} placeholder={t("presets.defaultModel")} onInput={(e) => set("model", e.currentTarget.value)} />
        </label>
        <label class="field field--wide">
          <span>{t("chat.systemPrompt")}</span>
          <textarea rows={4} value={f.prompt} onInput={(e) => set("prompt", e.currentTarget.value)} data-role="preset-prompt" />
        </label>
        <ParamsFields value={f.params} onChange={(params) => set("params", params)} />
      </div>
      <div class="preset-groups">
        <span class="field-label">{t("presets.groups")}</span>
        {props.groups.map((g) => (
          <label key={g.name} class="preset-group" data-group={g.name}>
            <span>{g.title}</span>
            <select value={groupState(g.name)} onChange={(e) => setGroup(g.name, e.currentTarget.value)}>
              <option value="default">{t("presets.groupDefault", { state: g.enabled ? t("presets.on") : t("presets.off") })}</option>
              <option value="on">{t("presets.on")}</option>
              <option value="off">{t("presets.off")}</option>
            </select>
          </label>
        ))}
      </div>
      {error ? <p class="inline-error">{error}</p> : null}
      <div class="row">
        <button type="submit" class="btn btn--primary" disabled={busy}>
          {t("common.save")}
        </button>
        <button type="button" class="btn btn--ghost" onClick={props.onCancel}>
          {t("common.cancel")}
        </button>
      </div>
    </form>
  );
}
