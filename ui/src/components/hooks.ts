import { useEffect, useState } from "preact/hooks";
import { chatStore } from "../store";
import type { ChatState } from "../timeline";
import type { ChatId } from "../types";

/** The store's state for one chat, re-rendering when it changes. */
export function useChatState(chat: ChatId): ChatState {
  const [state, setState] = useState(() => chatStore.get(chat));
  useEffect(() => {
    setState(chatStore.get(chat));
    return chatStore.subscribe(() => setState(chatStore.get(chat)));
  }, [chat]);
  return state;
}

/** Closes a popover on outside click or Esc. */
export function useDismiss(open: boolean, close: () => void, ref: { current: HTMLElement | null }): void {
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) close();
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        close();
      }
    };
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey, true);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey, true);
    };
  }, [open]);
}
