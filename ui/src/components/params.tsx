/**
 * A chat's request parameters as form fields, shared by the chat's Prompt popover and the
 * assistant (preset) form: the same fields, the same checks, the same words (F-58).
 */
import { type Key, t } from "../i18n";
import type { ChatParams, ProviderConfig } from "../types";

/** The fields' text as typed; blank means "use the default". */
export interface ParamsText {
  temperature: string;
  maxTokens: string;
}

export function paramsText(p: ChatParams): ParamsText {
  return {
    temperature: p.temperature == null ? "" : String(p.temperature),
    maxTokens: p.maxTokens == null ? "" : String(p.maxTokens),
  };
}

/** The parameters the fields say, or why they are refused: a temperature outside 0–2, a length that is not a whole number above 0. */
export function readParams(text: ParamsText): { params: ChatParams } | { error: Key } {
  const params: ChatParams = {};
  if (text.temperature.trim() !== "") {
    const t1 = Number(text.temperature);
    if (!(Number.isFinite(t1) && t1 >= 0 && t1 <= 2)) return { error: "chat.promptTemperatureRange" };
    params.temperature = t1;
  }
  if (text.maxTokens.trim() !== "") {
    const m1 = Number(text.maxTokens);
    if (!(Number.isInteger(m1) && m1 >= 1)) return { error: "chat.promptMaxTokensRange" };
    params.maxTokens = m1;
  }
  return { params };
}

export function ParamsFields({ value, onChange }: { value: ParamsText; onChange: (v: ParamsText) => void }) {
  return (
    <>
      <label class="field">
        <span>{t("chat.temperature")}</span>
        <input
          type="number"
          min="0"
          max="2"
          step="0.1"
          value={value.temperature}
          placeholder={t("chat.useDefault")}
          onInput={(e) => onChange({ ...value, temperature: e.currentTarget.value })}
          data-role="temperature"
        />
      </label>
      <label class="field">
        <span>{t("chat.maxTokens")}</span>
        <input
          type="number"
          min="1"
          step="1"
          value={value.maxTokens}
          placeholder={t("chat.useDefault")}
          onInput={(e) => onChange({ ...value, maxTokens: e.currentTarget.value })}
          data-role="max-tokens"
        />
      </label>
    </>
  );
}

/** The providers as the options of a select, after its "default" option. */
export function ProviderOptions({ providers }: { providers: ProviderConfig[] }) {
  return (
    <>
      {providers.map((p) => (
        <option key={p.id} value={String(p.id)}>
          {p.name}
        </option>
      ))}
    </>
  );
}
