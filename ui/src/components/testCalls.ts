/** Test support: a `run_command` call as the timeline holds it after its events. */
import { applyEvent, type CallView, emptyChat, type TimelineMessage } from "../timeline";
import type { CallSummary, ChatEvent, PendingApproval } from "../types";

/** The `finished` event of call `seq` in `chat`: a successful `run_command` unless `summary` says otherwise. */
export function finishedEvent(chat: number, seq: number, summary: Partial<CallSummary>): ChatEvent {
  return {
    type: "tool",
    event: {
      type: "finished",
      chat,
      seq,
      summary: {
        tool: "run_command",
        status: "success",
        decision: { execution: null, result: null },
        decidedBy: "none",
        durationMs: 5,
        preview: "ok",
        content: "ok",
        truncated: false,
        resultVar: null,
        argsVar: null,
        guard: "quiet",
        ...summary,
      },
    },
  };
}

/** A finished `run_command` call with `rawArgs`, its summary's defaults overridden by `summary`. */
export function finishedCall(rawArgs: string, summary: Partial<CallSummary>): CallView {
  const state = applyEvent(emptyChat(1), {
    type: "tool",
    event: { type: "beforeCall", chat: 1, seq: 1, callId: "c", requestedName: "run_command", rawArgs },
  });
  const call = applyEvent(state, finishedEvent(1, 1, summary)).calls[0];
  if (!call) throw new Error("no call");
  return call;
}

/** A finished message of the timeline, with nothing but its text. */
export function timelineMessage(id: number, role: "user" | "assistant", content: string): TimelineMessage {
  return { id, role, content, reasoning: "", retry: null, status: "complete", toolCalls: [], usage: null, createdAt: 0 };
}

/** Call `seq` of `chat` (a `tool` of `group`) waiting for the user to let it run: an "ask always" card. */
export function pendingApproval(chat: number, seq: number, tool: string, group: string): PendingApproval {
  return {
    id: `ap-${seq}`,
    chat,
    seq,
    callId: `c${seq}`,
    tool,
    group,
    createdAt: 0,
    request: {
      kind: "execution",
      arguments: {},
      preview: null,
      policy: "ask-always",
      reason: { type: "askAlways" },
      ruleSubject: "path",
      suggestedPattern: null,
    },
  };
}
