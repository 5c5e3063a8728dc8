/**
 * What every approval card shares: its props, where a key was pressed, sending the decision,
 * the card's head, and a short line of model-written text revealed.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import * as api from "../api";
import type { KeyContext } from "../approvals";
import { errorMessage } from "../format";
import { t } from "../i18n";
import { reveal } from "../reveal";
import { Icon } from "./icons";
import { RevealedText } from "./Payload";
import type { ChatId, Decision, PendingApproval } from "../types";

/** What each approval card is given: the approval, its place in the queue, and who to tell once it is decided. */
export interface ApprovalCardProps {
  approval: PendingApproval;
  /** First in the queue: takes keyboard focus. */
  active: boolean;
  position: number;
  total: number;
  onDecided: (id: string) => void;
}

function isTextField(target: EventTarget | null): boolean {
  return target instanceof HTMLTextAreaElement || (target instanceof HTMLInputElement && target.type !== "radio");
}

/**
 * Whether the user is typing in a field outside `card`: then a card that appears does not take
 * the keyboard. A field that is disabled does not count: the message box is disabled as the
 * turn starts, and the browser moves the focus off it only after the card may have appeared
 * (the card would then never get the focus, and Enter would decide nothing).
 */
export function typingElsewhere(card: HTMLElement): boolean {
  const focused = document.activeElement;
  if (!focused || !isTextField(focused) || card.contains(focused)) return false;
  return !(focused as HTMLInputElement | HTMLTextAreaElement).disabled;
}

/** Where a key was pressed on a card, for the pure key maps in approvals.ts. */
export function keyContext(e: KeyboardEvent, reason: string): KeyContext {
  const target = e.target as HTMLElement | null;
  return {
    // Only the card itself: on a focused button Enter and Space are the button's.
    onCard: e.target === e.currentTarget,
    inTextField: isTextField(target),
    inReasonField: target?.dataset["role"] === "reason",
    reason,
    ctrl: e.ctrlKey || e.metaKey || e.altKey,
    shift: e.shiftKey,
    repeat: e.repeat,
  };
}

/**
 * A card's keyboard handler: the key `decide` reads (with the reason field's state) as a decision
 * is applied, and nothing else happens to the key; an IME composing (Chinese input in the reason
 * field) keeps its Enter and Esc.
 */
export function decisionKeys<D>(
  decide: (key: string, ctx: KeyContext) => D | null,
  reason: string,
  apply: (decision: D) => void,
): (e: KeyboardEvent) => void {
  return (e) => {
    if (e.isComposing) return;
    const decision = decide(e.key, keyContext(e, reason));
    if (!decision) return;
    e.preventDefault();
    e.stopPropagation();
    apply(decision);
  };
}

export function useDecide(chat: ChatId, id: string, onDecided: (id: string) => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const send = async (decision: Decision) => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await api.answerApproval(chat, id, decision);
      onDecided(id);
    } catch (e) {
      // An invalid edit is refused and the approval keeps waiting: show why on the card.
      setError(errorMessage(e));
      setBusy(false);
    }
  };
  return { busy, error, send };
}

/** The head both approval cards share: the gate icon, what is asked, the group, the card's own
 * tag (policy or status) and the place in the queue. */
export function ApprovalHead(props: { title: string; group: string | null; position: number; total: number; children: ComponentChildren }) {
  return (
    <div class="approval-head">
      <Icon name="gate" class="approval-icon" />
      <strong>
        <RevealedLine text={props.title} />
      </strong>
      {props.group ? <span class="tag">{t("approval.group", { group: props.group })}</span> : null}
      {props.children}
      {props.total > 1 ? <span class="tag tag--wait">{t("approval.queued", { n: props.position, total: props.total })}</span> : null}
    </div>
  );
}

/** A short line with model-written text in it (a path, a folder), revealed as a whole. */
export function RevealedLine({ text }: { text: string }) {
  return <RevealedText segments={reveal(text).segments} />;
}
