/** A chat: its header, the timeline of messages and the composer. */
import { useRef } from "preact/hooks";
import { t } from "../i18n";
import * as session from "../session";
import type { ChatState } from "../timeline";
import type { ChatRow } from "../types";
import { useChatState, useFollowBottom, useLoad } from "./hooks";
import { ChatHeader, type ChatViewProps } from "./ChatHeader";
import { Composer } from "./Composer";
import { ExposureStrip } from "./Guard";
import { TaskStrip } from "./TaskStrip";
import { Timeline } from "./Messages";

export function ChatView(props: ChatViewProps) {
  const { chat } = props;
  const state = useChatState(chat.id);
  const { error: loadError, loading } = useLoad(() => session.loadChat(chat.id), [chat.id]);
  const scroller = useRef<HTMLDivElement>(null);
  const { stick, onScroll } = useFollowBottom(scroller, chat.id, state);

  const empty = !loading && !loadError && state.messages.length === 0;

  return (
    <section class="chat" aria-label={chat.title} data-chat={chat.id}>
      <ChatHeader {...props} />
      {state.task ? <TaskStrip chat={chat.id} task={state.task} /> : null}
      <ExposureStrip chat={chat.id} version={exposureVersion(state)} />
      <div class="chat-scroll" ref={scroller} onScroll={onScroll}>
        <div class="timeline">
          {props.showDemoInvite ? (
            <div class="banner">
              <span>{t("chat.demoBanner")}</span>
              <button type="button" class="btn btn--primary btn--small" onClick={props.onOpenProviders}>
                {t("chat.addProvider")}
              </button>
              <button type="button" class="btn btn--ghost btn--small" onClick={props.onDismissInvite}>
                {t("chat.dismiss")}
              </button>
            </div>
          ) : null}
          {loading && state.messages.length === 0 ? (
            <div class="state" role="status">
              <span class="spinner" aria-hidden="true" /> {t("common.loading")}
            </div>
          ) : null}
          {loadError ? (
            <div class="state state--error" role="alert">
              {t("chat.loadFailed", { message: loadError })}
            </div>
          ) : null}
          {empty ? <EmptyChat chat={chat} /> : null}
          <Timeline
            state={state}
            chat={chat}
            providers={props.providers}
            scroller={scroller}
            stick={stick}
            actions={{ onOpenProviders: props.onOpenProviders, onCarryOver: props.onCarryOver }}
          />
        </div>
      </div>
      <Composer chat={chat} state={state} />
    </section>
  );
}

/** Changes whenever something may have reached the model: a message, a call that ended, a turn
 * that started or ended, another branch shown. */
function exposureVersion(state: ChatState): string {
  const ended = state.calls.filter((c) => c.status !== "pending" && c.status !== "running" && !c.status.startsWith("awaiting")).length;
  const last = state.messages[state.messages.length - 1];
  return `${state.messages.length}:${last?.id ?? 0}:${ended}:${state.running}`;
}

function EmptyChat({ chat }: { chat: ChatRow }) {
  const suggestions = [t("chat.suggest1"), t("chat.suggest2"), t("chat.suggest3")];
  return (
    <div class="empty-chat">
      <h2>{t("chat.emptyTitle")}</h2>
      <p class="muted">{t("chat.emptyBody")}</p>
      <div class="suggestions">
        {suggestions.map((s) => (
          <button key={s} type="button" class="suggestion" onClick={() => void session.send(chat.id, s)}>
            {s}
          </button>
        ))}
      </div>
    </div>
  );
}
