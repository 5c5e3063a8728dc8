/** The card of an ask_user question. */
import { useState } from "preact/hooks";
import * as api from "../api";
import { errorMessage } from "../format";
import { t } from "../i18n";
import type { ChatId } from "../types";
import { Icon } from "./icons";

/** An ask_user question: choice buttons and a free-text answer. */
export function QuestionCard({
  chat,
  id,
  question,
  choices,
  onAnswered,
}: {
  chat: ChatId;
  id: string;
  question: string;
  choices: string[];
  onAnswered: (id: string) => void;
}) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const answer = async (value: string) => {
    if (busy || !value.trim()) return;
    setBusy(true);
    setError(null);
    try {
      await api.answerQuestion(chat, id, value);
      onAnswered(id);
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  };
  return (
    <div class="approval-card question-card is-active" data-question={id}>
      <div class="approval-head">
        <Icon name="question" class="approval-icon" />
        <strong>{t("question.title")}</strong>
      </div>
      <p class="question-text">{question}</p>
      {choices.length ? (
        <div class="approval-actions">
          {choices.map((c) => (
            <button key={c} type="button" class="btn" disabled={busy} onClick={() => void answer(c)}>
              {c}
            </button>
          ))}
        </div>
      ) : null}
      <form
        class="approval-actions"
        onSubmit={(e) => {
          e.preventDefault();
          void answer(text);
        }}
      >
        <input class="reason-input" placeholder={t("question.placeholder")} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit" class="btn btn--primary" disabled={busy || !text.trim()}>
          {t("question.send")}
        </button>
      </form>
      {error ? <p class="inline-error">{error}</p> : null}
    </div>
  );
}
