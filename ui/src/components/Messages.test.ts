import { describe, expect, it } from "vitest";
import { emptyChat, type CallView, type ChatState } from "../timeline";
import type { PendingApproval } from "../types";
import { callsUnderAnswers, keptAnswers } from "./Messages";
import { finishedCall, pendingApproval, timelineMessage } from "./testCalls";

const link = { server: "clock", uri: "ui://clock/app.html" };

function call(seq: number, messageId: number | null, over: Partial<CallView> = {}): CallView {
  return { ...finishedCall("{}", { tool: "clock__now" }), seq, messageId, view: null, viewOf: null, ...over };
}

function asking(seq: number): PendingApproval {
  return pendingApproval(1, seq, "clock__now", "clock");
}

function chat(calls: CallView[], approvals: PendingApproval[] = []): ChatState {
  return {
    ...emptyChat(1),
    messages: [
      timelineMessage(1, "user", "q"),
      timelineMessage(2, "assistant", "a"),
      timelineMessage(3, "user", "q2"),
      timelineMessage(4, "assistant", "b"),
    ],
    calls,
    approvals,
  };
}

describe("what the chat draws under its answers", () => {
  it("places a call's cards under its answer, a view's call under its view's call, and nothing else", () => {
    const state = chat([call(1, 2), call(2, 2, { viewOf: 1 }), call(3, 99), call(4, 4, { viewOf: 1 }), call(5, null)]);
    // 3's answer is not in the chat, 4's view is in another answer, 5 has none.
    expect([...callsUnderAnswers(state)].sort()).toEqual([1, 2]);
  });

  it("keeps drawn the answers showing a view or holding a card that waits, and no other", () => {
    const shown = call(1, 2, { view: link, status: "running" });
    const waiting = call(2, 4, { view: link, status: "awaiting_approval" });
    expect([...keptAnswers(chat([shown, waiting]))]).toEqual([2]);
    // The same call waiting for the user: its answer stays drawn too.
    expect([...keptAnswers(chat([shown, waiting], [asking(2)]))].sort()).toEqual([2, 4]);
    expect([...keptAnswers(chat([call(1, 2), call(2, 4)]))]).toEqual([]);
  });
});
