/**
 * An MCP server's question (elicitation, SPEC §11), inline in the chat under the call during
 * which it asks: which server asks, its message, and either a form built from its schema
 * (Enter sends it, Esc declines), a page to open — its whole address shown before anything
 * opens — or a request for the chat's model (sampling, F-99) — every text the model would be
 * sent shown before it is. Decline and Cancel are always there; nothing is answered for the user.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import * as api from "../api";
import { formContent, formFields, type Field, type FieldProblem } from "../elicitation";
import { errorMessage } from "../format";
import { t } from "../i18n";
import { reveal } from "../reveal";
import type { ElicitationAnswer, ElicitationKind, PendingElicitation } from "../types";
import { Icon } from "./icons";
import { RevealedText } from "./Payload";
import { SampledTexts } from "./SampledTexts";

type Value = string | boolean | string[];

function problemText(p: FieldProblem): string {
  switch (p.key) {
    case "form.required":
      return t("form.required");
    case "form.notNumber":
      return t("form.notNumber");
    case "form.notInteger":
      return t("form.notInteger");
    case "form.range":
      return t("form.range", { min: p.min, max: p.max });
  }
}

function TextInput(props: { id: string; kind: Extract<Field["kind"], { type: "text" }>; value: string; onValue: (v: Value) => void }) {
  const common = {
    id: props.id,
    value: props.value,
    maxLength: props.kind.maxLength ?? undefined,
    onInput: (e: Event) => props.onValue((e.currentTarget as HTMLInputElement).value),
  };
  if (props.kind.secret) return <input type="password" autoComplete="off" {...common} />;
  switch (props.kind.format) {
    case "email":
      return <input type="email" {...common} />;
    case "uri":
      return <input type="url" {...common} />;
    case "date":
      return <input type="date" {...common} />;
    case "date-time":
    case null:
      return <input type="text" {...common} />;
  }
}

function FieldInput(props: { id: string; field: Field; value: Value; onValue: (v: Value) => void }) {
  const { field: f, value, id } = props;
  switch (f.kind.type) {
    case "boolean":
      return <input id={id} type="checkbox" checked={value === true} onChange={(e) => props.onValue(e.currentTarget.checked)} />;
    case "choice":
      return (
        <select id={id} value={String(value)} onChange={(e) => props.onValue(e.currentTarget.value)}>
          {f.required ? null : <option value="">{t("form.none")}</option>}
          {f.required && value === "" ? <option value="">{t("form.choose")}</option> : null}
          {f.kind.options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      );
    case "choices": {
      const list = Array.isArray(value) ? value : [];
      return (
        <div class="elicit-choices" id={id} role="group">
          {f.kind.options.map((o) => (
            <label key={o.value}>
              <input
                type="checkbox"
                checked={list.includes(o.value)}
                onChange={(e) => props.onValue(e.currentTarget.checked ? [...list, o.value] : list.filter((v) => v !== o.value))}
              />{" "}
              {o.label}
            </label>
          ))}
        </div>
      );
    }
    case "number":
      return (
        <input
          id={id}
          type="text"
          inputMode={f.kind.integer ? "numeric" : "decimal"}
          class="mono"
          value={String(value)}
          onInput={(e) => props.onValue(e.currentTarget.value)}
        />
      );
    case "text":
      return <TextInput id={id} kind={f.kind} value={String(value)} onValue={props.onValue} />;
  }
}

/**
 * What a server asks the chat's model (MCP sampling): every text the model would be sent, each
 * with who it is presented as, shown whole before anything is sent.
 */
function SampledRequest({ server, kind }: { server: string; kind: Extract<ElicitationKind, { mode: "sampling" }> }) {
  return (
    <div class="elicit-sampling" data-role="elicit-sampling">
      <p class="muted small">{t("elicit.samplingIntro", { server })}</p>
      <SampledTexts server={server} system={kind.system} messages={kind.messages} />
      <p class="muted small">{t("elicit.samplingLimit", { tokens: kind.maxTokens, model: kind.model })}</p>
    </div>
  );
}

/** The two ways to say no, the same under a form and a page: decline (Esc), or cancel what the server is doing. */
function Refusals({ busy, send }: { busy: boolean; send: (answer: ElicitationAnswer) => Promise<void> }) {
  return (
    <>
      <button type="button" class="btn" disabled={busy} onClick={() => void send({ action: "decline" })} data-role="elicit-decline">
        {t("elicit.decline")} <kbd>Esc</kbd>
      </button>
      <button type="button" class="btn btn--danger-outline" disabled={busy} onClick={() => void send({ action: "cancel" })} data-role="elicit-cancel">
        {t("elicit.cancel")}
      </button>
    </>
  );
}

export function ElicitationCard(props: { elicitation: PendingElicitation; onAnswered: (id: string) => void }) {
  const e = props.elicitation;
  const fields = useMemo(() => (e.kind.mode === "form" ? formFields(e.kind.schema) : []), [e.kind]);
  const [values, setValues] = useState<Record<string, Value>>(() => Object.fromEntries(fields.map((f) => [f.name, f.initial])));
  const [problems, setProblems] = useState<Record<string, FieldProblem>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const root = useRef<HTMLDivElement>(null);
  const title = e.kind.mode === "sampling" ? t("elicit.samplingTitle", { server: e.server }) : t("elicit.title", { server: e.server });
  useEffect(() => {
    // A form's first field takes the keyboard; a page to open or a request for the model, the
    // card itself (its buttons are a Tab away: no stray Enter sends anything).
    const first = root.current?.querySelector<HTMLElement>(".elicit-form input, .elicit-form select");
    (first ?? root.current)?.focus();
  }, []);

  const send = async (answer: ElicitationAnswer) => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await api.answerElicitation(e.chat, e.id, answer);
      props.onAnswered(e.id);
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  };
  const submit = () => {
    const made = formContent(fields, values);
    if (!made.ok) {
      setProblems(made.problems);
      return;
    }
    setProblems({});
    void send({ action: "accept", content: made.content });
  };
  const open = async () => {
    if (e.kind.mode !== "url" || busy) return;
    try {
      await api.openExternal(e.kind.url);
    } catch (err) {
      setError(errorMessage(err));
      return;
    }
    await send({ action: "accept", content: null });
  };
  const onKeyDown = (ev: KeyboardEvent) => {
    if (ev.isComposing || ev.key !== "Escape") return;
    ev.preventDefault();
    ev.stopPropagation();
    void send({ action: "decline" });
  };

  return (
    <div
      ref={root}
      class="approval-card elicit-card is-active"
      tabIndex={-1}
      role="group"
      aria-label={title}
      data-elicitation={e.id}
      onKeyDown={onKeyDown}
    >
      <div class="approval-head">
        <Icon name="question" class="approval-icon" />
        <strong>{title}</strong>
      </div>
      {e.kind.mode === "sampling" ? null : (
        <p class="question-text">
          <RevealedText segments={reveal(e.message).segments} />
        </p>
      )}
      {fields.some((f) => f.kind.type === "text" && f.kind.secret) ? (
        <p class="inline-error" role="alert" data-role="elicit-secret-warning">
          {t("elicit.asksSecret", { server: e.server })}
        </p>
      ) : null}
      {e.kind.mode === "form" ? (
        <form
          class="elicit-form"
          onSubmit={(ev) => {
            ev.preventDefault();
            submit();
          }}
        >
          {fields.map((f) => {
            const id = `elicit-${e.id}-${f.name}`;
            const problem = problems[f.name];
            return (
              <div key={f.name} class={`field${f.kind.type === "boolean" ? " field--inline" : ""}`} data-field={f.name}>
                <label for={id}>
                  {f.title}
                  {f.required ? <span aria-hidden="true"> *</span> : null}
                </label>
                <FieldInput id={id} field={f} value={values[f.name] ?? f.initial} onValue={(v) => setValues({ ...values, [f.name]: v })} />
                {f.description ? <small class="muted">{f.description}</small> : null}
                {problem ? <small class="inline-error">{problemText(problem)}</small> : null}
              </div>
            );
          })}
          <div class="approval-actions">
            <button type="submit" class="btn btn--primary" disabled={busy} data-role="elicit-accept">
              {t("elicit.send")} <kbd>Enter</kbd>
            </button>
            <Refusals busy={busy} send={send} />
          </div>
        </form>
      ) : e.kind.mode === "url" ? (
        <>
          <p class="muted small">{t("elicit.urlIntro", { host: e.kind.host })}</p>
          <pre class="code-pane elicit-url" data-role="elicit-url">
            <RevealedText segments={reveal(e.kind.url).segments} />
          </pre>
          <div class="approval-actions">
            <button type="button" class="btn btn--primary" disabled={busy} onClick={() => void open()} data-role="elicit-open">
              {t("elicit.open", { host: e.kind.host })}
            </button>
            <Refusals busy={busy} send={send} />
          </div>
        </>
      ) : (
        <>
          <SampledRequest server={e.server} kind={e.kind} />
          <div class="approval-actions">
            <button
              type="button"
              class="btn btn--primary"
              disabled={busy}
              onClick={() => void send({ action: "accept", content: null })}
              data-role="elicit-sample"
            >
              {t("elicit.samplingAllow")}
            </button>
            <Refusals busy={busy} send={send} />
          </div>
        </>
      )}
      {error ? (
        <p class="inline-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
