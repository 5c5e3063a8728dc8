/**
 * What a call's MCP server asked the user during the call (F-99), kept with the call, and how
 * each question ended: the question as the server wrote it (invisible characters revealed), the
 * form's answer field by field under the form's own labels (a field named as a secret withheld),
 * the page it wanted opened, or its request for the chat's model that the user did not let
 * through. Read on the opened call card, after the fact and after a restart.
 */
import { formFields } from "../elicitation";
import { t } from "../i18n";
import { reveal } from "../reveal";
import type { AskedQuestion } from "../types";
import { RevealedText } from "./Payload";
import { SampledTexts } from "./SampledTexts";

/** How a kept question ended, in the card's words. */
function ended(q: AskedQuestion): string {
  switch (q.outcome) {
    case "accepted":
      return q.kind.mode === "url" ? t("tool.askedOpened") : t("tool.askedAnswered");
    case "declined":
      return t("tool.askedDeclined");
    case "cancelled":
      return t("tool.askedCancelled");
    case "withdrawn":
      return t("tool.askedWithdrawn");
  }
}

/** The form's answer as label and value, in the form's order, then anything it did not list. */
function answerLines(q: AskedQuestion): { name: string; label: string; value: string }[] {
  const answer = q.answer;
  if (!answer || typeof answer !== "object" || Array.isArray(answer)) return [];
  const values = answer as Record<string, unknown>;
  const fields = q.kind.mode === "form" ? formFields(q.kind.schema) : [];
  const names = [...fields.map((f) => f.name).filter((n) => n in values), ...Object.keys(values).filter((n) => !fields.some((f) => f.name === n))];
  return names.map((name) => {
    const v = values[name];
    return {
      name,
      label: fields.find((f) => f.name === name)?.title ?? name,
      value: typeof v === "string" ? v : typeof v === "boolean" ? t(v ? "tool.askedYes" : "tool.askedNo") : JSON.stringify(v),
    };
  });
}

export function AskedQuestions({ server, asked }: { server: string; asked: AskedQuestion[] }) {
  return (
    <>
      {asked.map((q) => (
        <section key={q.id} class="asked-question" data-role="asked-question" data-outcome={q.outcome}>
          <div class="section-label">
            {q.kind.mode === "sampling" ? t("tool.askedModel", { server }) : t("tool.askedHeading", { server })}
            <span class="tag">{ended(q)}</span>
          </div>
          {q.kind.mode === "sampling" ? (
            <SampledTexts server={server} system={q.kind.system} messages={q.kind.messages} />
          ) : (
            <p class="question-text">
              <RevealedText segments={reveal(q.message).segments} />
            </p>
          )}
          {q.note ? (
            <p class="muted small" data-role="asked-note">
              {q.note}
            </p>
          ) : null}
          {q.kind.mode === "url" ? (
            <pre class="code-pane elicit-url">
              <RevealedText segments={reveal(q.kind.url).segments} />
            </pre>
          ) : null}
          {answerLines(q).length ? (
            <>
              <h4 class="small muted">{t("tool.askedAnswer")}</h4>
              <dl class="asked-answer" data-role="asked-answer">
                {answerLines(q).map((line) => (
                  <div key={line.name} data-field={line.name}>
                    <dt>{line.label}</dt>
                    <dd>
                      <RevealedText segments={reveal(line.value).segments} />
                    </dd>
                  </div>
                ))}
              </dl>
            </>
          ) : null}
        </section>
      ))}
    </>
  );
}
