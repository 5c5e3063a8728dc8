/** The provider and model fields, with the models the provider lists (the chat header's model picker and Regenerate with another model). */
import { t } from "../i18n";
import { modelsQuery } from "../queries";
import type { ProviderConfig } from "../types";
import { useServerState } from "./useServerState";
import { ProviderOptions } from "./params";

export function ModelFields(props: {
  providers: ProviderConfig[];
  providerId: number | null;
  model: string;
  listId: string;
  defaultName?: string;
  onProvider: (id: number | null) => void;
  onModel: (model: string) => void;
}) {
  const { providers, providerId } = props;
  const chosen = providers.find((p) => p.id === providerId) ?? providers[0] ?? null;
  const listed = chosen && chosen.kind !== "demo" ? chosen.id : null;
  const models = useServerState(listed === null ? null : modelsQuery(listed));
  return (
    <>
      <label class="field">
        <span>{t("chat.provider")}</span>
        <select
          value={providerId === null ? "" : String(providerId)}
          onChange={(e) => {
            const v = e.currentTarget.value;
            props.onProvider(v === "" ? null : Number(v));
          }}
        >
          {props.defaultName !== undefined ? <option value="">{t("chat.providerDefault", { name: props.defaultName })}</option> : null}
          <ProviderOptions providers={providers} />
        </select>
      </label>
      <label class="field">
        <span>{t("chat.model")}</span>
        <input
          class="mono"
          list={props.listId}
          value={props.model}
          placeholder={chosen?.defaultModel ?? ""}
          onInput={(e) => props.onModel(e.currentTarget.value)}
        />
        <datalist id={props.listId}>
          {(models.data ?? []).map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <small class="muted">{t("chat.modelHint")}</small>
        {models.error ? <small class="inline-error">{t("chat.modelsFailed", { message: models.error })}</small> : null}
      </label>
    </>
  );
}

/** The words for a failed chat action. */
