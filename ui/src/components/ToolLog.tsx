import { useRef } from "preact/hooks";
import { t } from "../i18n";
import { callsByTurn, type LogTurn } from "../timeline";
import type { ChatId } from "../types";
import { useChatState, useFollowBottom } from "./hooks";
import { ToolCard } from "./ToolCard";
import { VIRTUALIZE_FROM, VirtualList } from "./VirtualList";

/**
 * F-52: every tool call of the chat, turn by turn, live while running. It follows the newest
 * call while scrolled to the bottom; a long session's log renders only the turns near the view.
 */
export function ToolLog({ chat, onClose }: { chat: ChatId; onClose: () => void }) {
  const state = useChatState(chat);
  const turns = callsByTurn(state);
  const body = useRef<HTMLDivElement>(null);
  // A call a server's view made says so beside the model's (F-96).
  const viewServer = (of: number | null) => (of === null ? undefined : (state.calls.find((c) => c.seq === of)?.view?.server ?? ""));
  const { stick, onScroll } = useFollowBottom(body, chat, state);
  const renderTurn = (turn: LogTurn, i: number) => (
    <section class="log-turn" key={turn.userId}>
      <div class="log-turn-head">
        <span class="tag">{t("tool.turn", { n: i + 1 })}</span>
        <span class="log-turn-text">{turn.userText}</span>
      </div>
      {turn.calls.map((c) => (
        <ToolCard key={c.seq} call={c} compact fromView={viewServer(c.viewOf)} />
      ))}
    </section>
  );
  return (
    <aside class="log-panel" aria-label={t("chat.log")}>
      <header class="log-header">
        <strong>{t("chat.log")}</strong>
        <button type="button" class="btn btn--ghost btn--small" onClick={onClose} aria-label={t("common.close")}>
          ✕
        </button>
      </header>
      <div class="log-body" ref={body} onScroll={onScroll}>
        {turns.length === 0 ? <p class="muted log-empty">{t("tool.noCalls")}</p> : null}
        {turns.length >= VIRTUALIZE_FROM ? (
          <VirtualList items={turns.map((turn, i) => ({ key: turn.userId, render: () => renderTurn(turn, i) }))} scroller={body} stick={stick} />
        ) : (
          turns.map(renderTurn)
        )}
      </div>
    </aside>
  );
}
