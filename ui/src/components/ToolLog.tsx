import { t } from "../i18n";
import { callsByTurn } from "../timeline";
import type { ChatId } from "../types";
import { useChatState } from "./hooks";
import { ToolCard } from "./ToolCard";

/** F-52: every tool call of the chat, turn by turn, live while running. */
export function ToolLog({ chat, onClose }: { chat: ChatId; onClose: () => void }) {
  const state = useChatState(chat);
  const turns = callsByTurn(state);
  return (
    <aside class="log-panel" aria-label={t("chat.log")}>
      <header class="log-header">
        <strong>{t("chat.log")}</strong>
        <button type="button" class="btn btn--ghost btn--small" onClick={onClose} aria-label={t("common.close")}>
          ✕
        </button>
      </header>
      <div class="log-body">
        {turns.length === 0 ? <p class="muted log-empty">{t("tool.noCalls")}</p> : null}
        {turns.map((turn, i) => (
          <section class="log-turn" key={i}>
            <div class="log-turn-head">
              <span class="tag">{t("tool.turn", { n: i + 1 })}</span>
              <span class="log-turn-text">{turn.userText}</span>
            </div>
            {turn.calls.map((c) => (
              <ToolCard key={c.seq} call={c} compact />
            ))}
          </section>
        ))}
      </div>
    </aside>
  );
}
