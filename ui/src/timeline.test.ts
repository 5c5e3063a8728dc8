import { describe, expect, it } from "vitest";
import {
  addPendingUserMessage,
  appendOutput,
  applyEvent,
  callsByTurn,
  callsFor,
  emptyChat,
  applyToolEvent,
  fromHistory,
  isUnfinished,
  showsView,
  keepEarlier,
  LIVE_OUTPUT_LIMIT,
  PENDING_USER_ID,
  startEdit,
  startRegenerate,
  withEarlier,
  type CallView,
  type ChatState,
  type TimelineMessage,
} from "./timeline";
import { ChatStore } from "./store";
import { finishedEvent, timelineMessage } from "./components/testCalls";
import type { ChatEvent, ChatHistory, PendingApproval } from "./types";

const approval: PendingApproval = {
  id: "ap-1",
  chat: 7,
  seq: 1,
  callId: "call-1",
  tool: "shell",
  group: "shell",
  createdAt: 0,
  request: {
    kind: "execution",
    arguments: { command: "ls" },
    preview: { type: "command", command: "ls", cwd: "/w" },
    policy: "ask-always",
    reason: { type: "askAlways" },
    ruleSubject: "command",
    suggestedPattern: "ls *",
  },
};

function run(events: ChatEvent[], start = emptyChat(7)) {
  return events.reduce(applyEvent, start);
}

describe("timeline reducer", () => {
  it("concatenates text deltas of one message and keeps messages apart", () => {
    const s = run([
      { type: "turnStarted", chat: 7, userMessageId: 1 },
      { type: "roundStarted", round: 1, messageId: 2 },
      { type: "textDelta", messageId: 2, text: "Hel" },
      { type: "textDelta", messageId: 2, text: "lo" },
      { type: "textDelta", messageId: 2, text: " world" },
      { type: "roundStarted", round: 2, messageId: 3 },
      { type: "textDelta", messageId: 3, text: "Second" },
    ]);
    expect(s.messages.map((m) => [m.id, m.content])).toEqual([
      [2, "Hello world"],
      [3, "Second"],
    ]);
    expect(s.running).toBe(true);
  });

  it("names the optimistic user message when the turn starts", () => {
    const s = run([{ type: "turnStarted", chat: 7, userMessageId: 41 }], addPendingUserMessage(emptyChat(7), "hi", 5));
    expect(s.messages).toHaveLength(1);
    expect(s.messages[0]).toMatchObject({ id: 41, role: "user", content: "hi" });
    expect(s.messages.some((m) => m.id === PENDING_USER_ID)).toBe(false);
  });

  it("adds an approval card on approvalRequested and removes it on approvalResolved", () => {
    let s = run([
      { type: "roundStarted", round: 1, messageId: 2 },
      { type: "toolCallStarted", messageId: 2, index: 0, id: "call-1", name: "shell" },
      { type: "tool", event: { type: "beforeCall", chat: 7, seq: 1, callId: "call-1", requestedName: "shell", rawArgs: '{"command":"ls"}' } },
      { type: "tool", event: { type: "approvalRequested", approval } },
    ]);
    expect(s.approvals.map((a) => a.id)).toEqual(["ap-1"]);
    expect(callsFor(s, 2)).toHaveLength(1);
    expect(callsFor(s, 2)[0]).toMatchObject({ status: "awaiting_approval", args: { command: "ls" }, group: "shell" });

    s = applyEvent(s, { type: "tool", event: { type: "approvalRequested", approval } });
    expect(s.approvals).toHaveLength(1);

    s = applyEvent(s, {
      type: "tool",
      event: {
        type: "approvalResolved",
        chat: 7,
        seq: 1,
        id: "ap-1",
        outcome: { type: "decided", decision: { kind: "execution", decision: { type: "allowOnce" } } },
      },
    });
    expect(s.approvals).toEqual([]);
  });

  it("tracks a call from start through live output to its summary", () => {
    const s = run([
      { type: "roundStarted", round: 1, messageId: 2 },
      { type: "tool", event: { type: "beforeCall", chat: 7, seq: 4, callId: "c", requestedName: "calc", rawArgs: "{}" } },
      { type: "tool", event: { type: "started", chat: 7, seq: 4, tool: "calculate", args: '{"e":"1+1"}' } },
      { type: "tool", event: { type: "outputDelta", chat: 7, seq: 4, stream: "stdout", text: "a", skipped: 0 } },
      { type: "tool", event: { type: "outputDelta", chat: 7, seq: 4, stream: "stdout", text: "b", skipped: 0 } },
      {
        type: "tool",
        event: {
          type: "finished",
          chat: 7,
          seq: 4,
          summary: {
            tool: "calculate",
            status: "success",
            decision: { execution: "allow", result: null },
            decidedBy: "auto",
            durationMs: 12,
            preview: "2",
            content: "2",
            truncated: false,
            resultVar: "Result/1",
            argsVar: null,
            guard: "quiet",
          },
        },
      },
    ]);
    expect(s.calls[0]).toMatchObject({
      name: "calculate",
      messageId: 2,
      args: { e: "1+1" },
      output: "ab",
      status: "success",
      decision: { execution: "allow", result: null },
      decidedBy: "auto",
      durationMs: 12,
      resultVar: "Result/1",
    });
  });

  it("carries both decisions of a reviewed call, and none before anything is decided", () => {
    const before = run([
      { type: "roundStarted", round: 1, messageId: 2 },
      { type: "tool", event: { type: "beforeCall", chat: 7, seq: 5, callId: "c", requestedName: "shell", rawArgs: "{}" } },
    ]);
    expect(before.calls[0]).toMatchObject({ decision: { execution: null, result: null }, decidedBy: "none", status: "pending" });
    const after = applyEvent(before, {
      type: "tool",
      event: {
        type: "finished",
        chat: 7,
        seq: 5,
        summary: {
          tool: "shell",
          status: "result_rejected",
          decision: { execution: "allowOnce", result: "reject" },
          decidedBy: "user",
          durationMs: 3,
          preview: "",
          content: "withheld",
          truncated: false,
          resultVar: null,
          argsVar: null,
          guard: "quiet",
        },
      },
    });
    expect(after.calls[0]).toMatchObject({ status: "result_rejected", decision: { execution: "allowOnce", result: "reject" }, decidedBy: "user" });
  });

  it("cancels exactly the calls that had not ended when the turn ends", () => {
    const s = run([
      { type: "roundStarted", round: 1, messageId: 2 },
      { type: "tool", event: { type: "beforeCall", chat: 7, seq: 1, callId: "a", requestedName: "shell", rawArgs: "{}" } },
      { type: "tool", event: { type: "beforeCall", chat: 7, seq: 2, callId: "b", requestedName: "shell", rawArgs: "{}" } },
      { type: "tool", event: { type: "started", chat: 7, seq: 2, tool: "shell", args: "{}" } },
      { type: "tool", event: { type: "beforeCall", chat: 7, seq: 3, callId: "c", requestedName: "shell", rawArgs: "{}" } },
      {
        type: "tool",
        event: {
          type: "finished",
          chat: 7,
          seq: 3,
          summary: {
            tool: "shell",
            status: "execution_rejected",
            decision: { execution: "deny", result: null },
            decidedBy: "policy",
            durationMs: 0,
            preview: "",
            content: "denied",
            truncated: false,
            resultVar: null,
            argsVar: null,
            guard: "quiet",
          },
        },
      },
      { type: "turnFinished", outcome: { type: "stopped", usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } } },
    ]);
    expect(s.calls.map((c) => c.status)).toEqual(["cancelled", "cancelled", "execution_rejected"]);
    expect(isUnfinished("awaiting_result_review")).toBe(true);
    expect(isUnfinished("timed_out")).toBe(false);
  });

  it("keeps a call going on as its server's task through the end of its turn, shows its task's status, then its late result", () => {
    let s = run([
      { type: "roundStarted", round: 1, messageId: 2 },
      { type: "tool", event: { type: "beforeCall", chat: 7, seq: 1, callId: "a", requestedName: "tasks__long_job", rawArgs: "{}" } },
      { type: "tool", event: { type: "started", chat: 7, seq: 1, tool: "tasks__long_job", args: "{}" } },
      finishedEvent(7, 1, { tool: "tasks__long_job", status: "in_background", content: "goes on as a task" }),
      { type: "turnFinished", outcome: { type: "completed", usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } } },
    ]);
    expect(s.calls[0]).toMatchObject({ status: "in_background", isError: false });
    s = applyEvent(s, { type: "tool", event: { type: "progress", chat: 7, seq: 1, progress: 0, total: null, message: "working on the report" } });
    expect(s.calls[0]?.progress?.message).toBe("working on the report");
    // Its result comes for review while a later turn runs; that turn's end leaves the review on its card.
    const review: PendingApproval = {
      ...approval,
      id: "ap-late",
      request: { kind: "result", textForModel: "job done: the report", fullOutput: "job done: the report", status: "success" },
    };
    s = run(
      [
        { type: "turnStarted", chat: 7, userMessageId: 3 },
        { type: "tool", event: { type: "approvalRequested", approval: review } },
        { type: "turnFinished", outcome: { type: "completed", usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } } },
      ],
      s,
    );
    expect(s.calls[0]?.status).toBe("awaiting_result_review");
    expect(s.approvals.map((a) => a.id)).toEqual(["ap-late"]);
    s = applyEvent(s, finishedEvent(7, 1, { tool: "tasks__long_job", status: "success", content: "job done: the report" }));
    expect(s.calls[0]).toMatchObject({ status: "success", content: "job done: the report", progress: null });
  });

  it("shows a call's view from the moment it starts, and keeps it when the call then fails", () => {
    const view = { server: "clock", uri: "ui://clock/app.html" };
    let s = run([
      { type: "roundStarted", round: 1, messageId: 2 },
      { type: "tool", event: { type: "beforeCall", chat: 7, seq: 4, callId: "c", requestedName: "clock__wait", rawArgs: "{}" } },
    ]);
    expect(s.calls[0]?.view).toBeNull();
    s = applyEvent(s, { type: "tool", event: { type: "started", chat: 7, seq: 4, tool: "clock__wait", args: "{}", view } });
    expect(s.calls[0]?.view).toEqual(view);
    expect(showsView(s.calls[0] as CallView)).toBe(true);
    // Waiting for the user to let it run: no view, even with a link.
    expect(showsView({ ...(s.calls[0] as CallView), status: "awaiting_approval" })).toBe(false);
    // Its result reviewed, the call is "pending" until it ends: the view stays.
    s = { ...s, calls: [{ ...(s.calls[0] as CallView), status: "awaiting_result_review" }] };
    expect(showsView(s.calls[0] as CallView)).toBe(true);
    s = applyEvent(s, {
      type: "tool",
      event: {
        type: "approvalResolved",
        chat: 7,
        seq: 4,
        id: "ap-1",
        outcome: { type: "decided", decision: { kind: "result", decision: { type: "approve" } } },
      },
    });
    expect(s.calls[0]?.status).toBe("pending");
    expect(showsView(s.calls[0] as CallView)).toBe(true);
    s = applyEvent(s, finishedEvent(7, 4, { tool: "clock__wait", status: "cancelled" }));
    expect(s.calls[0]?.view).toEqual(view);
    expect(showsView(s.calls[0] as CallView)).toBe(true);
  });

  it("keeps only the last 16 Ki characters of live output and counts what it dropped", () => {
    const delta = (text: string, skipped = 0): ChatEvent => ({
      type: "tool",
      event: { type: "outputDelta", chat: 7, seq: 4, stream: "stdout", text, skipped },
    });
    let s = run([
      { type: "roundStarted", round: 1, messageId: 2 },
      { type: "tool", event: { type: "beforeCall", chat: 7, seq: 4, callId: "c", requestedName: "shell", rawArgs: "{}" } },
      delta("a".repeat(10_000)),
      delta("b".repeat(10_000)),
    ]);
    expect(LIVE_OUTPUT_LIMIT).toBe(16_384);
    let call = s.calls[0];
    expect(call?.output).toHaveLength(LIVE_OUTPUT_LIMIT);
    expect(call?.output.endsWith("b".repeat(10_000))).toBe(true);
    expect(call?.outputDropped).toBe(20_000 - LIVE_OUTPUT_LIMIT);
    // One huge chunk: only its tail is kept; the drops add up.
    s = applyEvent(s, delta("x".repeat(1_000_000) + "END"));
    call = s.calls[0];
    expect(call?.output).toHaveLength(LIVE_OUTPUT_LIMIT);
    expect(call?.output.endsWith("xEND")).toBe(true);
    expect(call?.outputDropped).toBe(20_000 + 1_000_003 - LIVE_OUTPUT_LIMIT);
    // A flood the backend sent as a tail: what it skipped comes after everything kept, so the
    // kept output goes too, and all of it is counted.
    s = applyEvent(s, delta("tail", 5_000_000));
    call = s.calls[0];
    expect(call?.output).toBe("tail");
    expect(call?.outputDropped).toBe(20_000 + 1_000_003 + 5_000_000);
  });

  it("shows a running call's last progress report and forgets it when the call ends", () => {
    const progress = (seq: number, value: number, total: number | null, message: string | null): ChatEvent => ({
      type: "tool",
      event: { type: "progress", chat: 7, seq, progress: value, total, message },
    });
    let s = run([
      { type: "roundStarted", round: 1, messageId: 2 },
      { type: "tool", event: { type: "beforeCall", chat: 7, seq: 4, callId: "c", requestedName: "probe__steps", rawArgs: "{}" } },
      { type: "tool", event: { type: "started", chat: 7, seq: 4, tool: "probe__steps", args: "{}" } },
      progress(4, 1, 4, "Step 1 of 4"),
      progress(4, 2, 4, "Step 2 of 4"),
      progress(9, 3, 4, "another call's"),
    ]);
    expect(s.calls[0]?.progress).toEqual({ progress: 2, total: 4, message: "Step 2 of 4" });
    s = applyEvent(
      s,
      finishedEvent(7, 4, {
        tool: "probe__steps",
        decision: { execution: "allow", result: null },
        decidedBy: "auto",
        durationMs: 12,
        preview: "4 steps done",
        content: "4 steps done",
      }),
    );
    expect(s.calls[0]?.progress).toBeNull();
    // A report the server sent before its answer but that arrives after it changes nothing.
    s = applyEvent(s, progress(4, 3, 4, "Step 3 of 4"));
    expect(s.calls[0]?.progress).toBeNull();
  });

  it("keeps small output whole and never starts the kept tail inside a surrogate pair", () => {
    expect(appendOutput({ output: "ab", outputDropped: 0 }, "c", 0, 4)).toEqual({ output: "abc", outputDropped: 0 });
    expect(appendOutput({ output: "abc", outputDropped: 2 }, "de", 0, 4)).toEqual({ output: "bcde", outputDropped: 3 });
    // "😀" is two UTF-16 units; cutting at 1 would leave half of it.
    expect(appendOutput({ output: "😀", outputDropped: 0 }, "xyz", 0, 4)).toEqual({ output: "xyz", outputDropped: 2 });
  });

  it("keeps questions until answered and clears waiting cards when the turn ends", () => {
    let s = run([
      { type: "tool", event: { type: "questionAsked", chat: 7, seq: 2, id: "q", question: "Which?", choices: ["a", "b"] } },
      { type: "tool", event: { type: "approvalRequested", approval } },
    ]);
    expect(s.questions).toHaveLength(1);
    // Answered in another window: the card goes; an unknown id changes nothing.
    const answered = applyEvent(s, { type: "tool", event: { type: "questionResolved", chat: 7, seq: 2, id: "q", answered: true } });
    expect(answered.questions).toEqual([]);
    expect(applyEvent(s, { type: "tool", event: { type: "questionResolved", chat: 7, seq: 9, id: "other", answered: false } })).toBe(s);
    s = applyEvent(s, {
      type: "turnFinished",
      outcome: { type: "stopped", usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    });
    expect(s.questions).toEqual([]);
    expect(s.approvals).toEqual([]);
    expect(s.running).toBe(false);
  });

  it("shows a server's question under its call until it is answered or withdrawn", () => {
    const elicitation = {
      id: "el",
      chat: 7,
      seq: 2,
      server: "forms",
      message: "Who are you?",
      kind: { mode: "form" as const, schema: { type: "object", properties: {} } },
      createdAt: 0,
    };
    const s = run([{ type: "tool", event: { type: "elicitationRequested", elicitation } }]);
    expect(s.questions).toEqual([{ id: "el", seq: 2, question: "Who are you?", choices: [], elicitation }]);
    // The same question twice (a re-read) is one card.
    expect(applyEvent(s, { type: "tool", event: { type: "elicitationRequested", elicitation } })).toBe(s);
    const withdrawn = applyEvent(s, { type: "tool", event: { type: "elicitationResolved", chat: 7, seq: 2, id: "el", outcome: "withdrawn" } });
    expect(withdrawn.questions).toEqual([]);
  });

  it("marks a stopped stream and records a failed turn's error for Retry", () => {
    let s = run([
      { type: "roundStarted", round: 1, messageId: 2 },
      { type: "textDelta", messageId: 2, text: "par" },
      { type: "turnFinished", outcome: { type: "stopped", usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } } },
    ]);
    expect(s.messages[0]?.status).toBe("stopped");
    s = run(
      [
        { type: "roundStarted", round: 1, messageId: 3 },
        { type: "retrying", attempt: 1, maxRetries: 4, delayMs: 500, error: "502", kind: "server", messageId: null },
        {
          type: "turnFinished",
          outcome: {
            type: "failed",
            error: "HTTP 401",
            kind: "auth",
            retryable: true,
            usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
          },
        },
      ],
      s,
    );
    expect(s.error).toEqual({ message: "HTTP 401", retryable: true, kind: "auth" });
    expect(s.retrying).toBeNull();
  });

  it("replaces a broken attempt's text, reasoning and calls with the retry notice until text comes back", () => {
    let s = run([
      { type: "roundStarted", round: 1, messageId: 2 },
      { type: "reasoningDelta", messageId: 2, text: "hmm " },
      { type: "reasoningDelta", messageId: 2, text: "yes" },
      { type: "textDelta", messageId: 2, text: "Half an ans" },
      { type: "toolCallStarted", messageId: 2, index: 0, id: "c1", name: "echo" },
    ]);
    expect(s.messages[0]).toMatchObject({ reasoning: "hmm yes", content: "Half an ans", retry: null });
    s = applyEvent(s, {
      type: "retrying",
      attempt: 2,
      maxRetries: 4,
      delayMs: 800,
      error: "the connection was lost",
      kind: "incomplete",
      messageId: 2,
    });
    expect(s.messages[0]).toMatchObject({
      content: "",
      reasoning: "",
      toolCalls: [],
      status: "streaming",
      retry: { attempt: 2, maxRetries: 4, error: "the connection was lost" },
    });
    s = applyEvent(s, { type: "textDelta", messageId: 2, text: "The whole answer." });
    expect(s.messages[0]).toMatchObject({ content: "The whole answer.", retry: null });
    // A retry before anything was shown leaves the messages alone and only raises the banner.
    const before = applyEvent(s, { type: "retrying", attempt: 1, maxRetries: 4, delayMs: 100, error: "503", kind: "server", messageId: null });
    expect(before.messages).toBe(s.messages);
    expect(before.retrying).toMatchObject({ attempt: 1, maxRetries: 4, messageId: null });
  });

  it("records usage per round", () => {
    const s = run([
      { type: "roundStarted", round: 1, messageId: 2 },
      {
        type: "roundFinished",
        round: 1,
        messageId: 2,
        finish: "stop",
        usage: { inputTokens: 10, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    ]);
    expect(s.messages[0]).toMatchObject({ status: "complete", usage: { inputTokens: 10, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 } });
  });
});

describe("fromHistory", () => {
  const history: ChatHistory = {
    running: false,
    revision: 4,
    earlier: null,
    task: null,
    messages: [
      { id: 1, chat: 7, role: "user", parentId: null, siblings: [], content: "time?", status: "complete", payload: null, usage: null, createdAt: 1 },
      {
        id: 2,
        chat: 7,
        role: "assistant",
        parentId: null,
        siblings: [],
        content: "",
        status: "complete",
        payload: { toolCalls: [{ id: "c1", name: "current_time", arguments: "{}" }] },
        usage: { inputTokens: 5, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        createdAt: 2,
      },
      {
        id: 3,
        chat: 7,
        role: "tool",
        parentId: null,
        siblings: [],
        content: "",
        status: "complete",
        payload: { results: [{ callId: "c1", name: "current_time", content: "09:00", isError: false }] },
        usage: null,
        createdAt: 3,
      },
      {
        id: 4,
        chat: 7,
        role: "assistant",
        parentId: null,
        siblings: [],
        content: "It is 9.",
        status: "interrupted",
        payload: { reasoning: "Check the clock." },
        usage: null,
        createdAt: 4,
      },
    ],
    calls: [
      {
        chat: 7,
        messageId: 2,
        round: 1,
        seq: 1,
        callId: "c1",
        requestedName: "current_time",
        tool: "current_time",
        group: "basic",
        rawArgs: '{"tz":"UTC"}',
        resolvedArgs: null,
        policy: "auto",
        decision: { execution: "allow", result: null },
        decidedBy: "auto",
        status: "success",
        resultText: "09:00",
        isError: false,
        truncated: false,
        resultVar: null,
        argsVar: null,
        guard: "quiet",
        startedAt: 1,
        endedAt: 2,
        durationMs: 1,
      },
    ],
  };

  it("puts a call a server's view made with the call whose view it is, waiting when its card waits", () => {
    const parent = history.calls[0]!;
    const withView: ChatHistory = {
      ...history,
      calls: [
        { ...parent, view: { server: "clock", uri: "ui://clock/app.html" } },
        { ...parent, messageId: null, seq: 2, callId: "view-c1-1", requestedName: "clock__tick", tool: "clock__tick", status: "running", viewOf: 1 },
      ],
    };
    const s = fromHistory(7, withView, [{ ...approval, seq: 2, callId: "view-c1-1" }]);
    const calls = callsFor(s, 2);
    expect(calls.map((c) => [c.seq, c.viewOf])).toEqual([
      [1, null],
      [2, 1],
    ]);
    expect(calls[0]?.view).toEqual({ server: "clock", uri: "ui://clock/app.html" });
    expect(calls[1]?.status).toBe("awaiting_approval");
    // Live, the same: the event names the view's call, and it joins its message.
    const live = applyToolEvent(s, {
      type: "beforeCall",
      chat: 7,
      seq: 3,
      callId: "view-c1-2",
      requestedName: "clock__tick",
      rawArgs: "{}",
      viewOf: 1,
    });
    expect(live.calls.find((c) => c.seq === 3)).toMatchObject({ viewOf: 1, messageId: 2 });
  });

  it("keeps, after a reload, what the chat's model answered a call's server", () => {
    const lent = {
      model: "m",
      system: null,
      messages: [{ role: "user" as const, text: "Summarise" }],
      answer: "Short.",
      at: 3,
      inputTokens: 1,
      outputTokens: 1,
    };
    const s = fromHistory(7, { ...history, calls: [{ ...history.calls[0]!, lent: [lent] }] });
    expect(callsFor(s, 2)[0]?.lent).toEqual([lent]);
    expect(callsFor(fromHistory(7, history), 2)[0]?.lent).toEqual([]);
  });

  it("keeps, after a reload, what a call's server asked the user and how it ended", () => {
    const asked = {
      id: "q1",
      note: null,
      message: "Whose job is this?",
      kind: { mode: "form" as const, schema: { type: "object" } },
      outcome: "accepted" as const,
      answer: { name: "Ada" },
      at: 4,
    };
    const s = fromHistory(7, { ...history, calls: [{ ...history.calls[0]!, asked: [asked] }] });
    expect(callsFor(s, 2)[0]?.asked).toEqual([asked]);
    expect(callsFor(fromHistory(7, history), 2)[0]?.asked).toEqual([]);
  });

  it("rebuilds the same timeline: tool messages fold into their calls", () => {
    const s = fromHistory(7, history);
    expect(s.revision).toBe(4);
    expect(s.messages.map((m) => m.role)).toEqual(["user", "assistant", "assistant"]);
    expect(s.messages[2]?.status).toBe("interrupted");
    expect(s.messages[2]).toMatchObject({ reasoning: "Check the clock.", retry: null });
    expect(s.messages[1]?.reasoning).toBe("");
    expect(callsFor(s, 2)).toHaveLength(1);
    expect(callsFor(s, 2)[0]).toMatchObject({ name: "current_time", args: { tz: "UTC" }, content: "09:00", status: "success" });
    expect(callsByTurn(s)).toEqual([{ userId: 1, userText: "time?", calls: [expect.objectContaining({ callId: "c1" })] }]);
  });

  it("says why the last turn failed after the chat is reopened", () => {
    const failed: ChatHistory = {
      revision: 0,
      earlier: null,
      task: null,
      messages: [
        { id: 1, chat: 7, role: "user", parentId: null, siblings: [], content: "hi", status: "complete", payload: null, usage: null, createdAt: 1 },
        {
          id: 2,
          chat: 7,
          role: "assistant",
          parentId: null,
          siblings: [],
          content: "half an ans",
          status: "error",
          payload: { toolCalls: [], failure: { message: "the stream was incomplete", kind: "incomplete", retryable: true } },
          usage: null,
          createdAt: 2,
        },
      ],
      calls: [],
      running: false,
    };
    expect(fromHistory(7, failed).error).toEqual({ message: "the stream was incomplete", retryable: true, kind: "incomplete" });
  });

  it("keeps a reviewed call's two decisions and a running call's status", () => {
    const [call] = history.calls;
    if (!call) throw new Error("no call");
    const s = fromHistory(7, {
      ...history,
      calls: [
        { ...call, status: "result_rejected", decision: { execution: "allowForChat", result: "reject" }, decidedBy: "user" },
        { ...call, seq: 2, callId: "c2", status: "running", decision: { execution: "allow", result: null }, decidedBy: "rule", resultText: null },
      ],
    });
    expect(s.calls[0]).toMatchObject({ status: "result_rejected", decision: { execution: "allowForChat", result: "reject" }, decidedBy: "user" });
    expect(s.calls[1]).toMatchObject({ status: "running", decision: { execution: "allow", result: null }, decidedBy: "rule", content: null });
  });

  it("shows a result that has no recorded call", () => {
    const s = fromHistory(7, { ...history, calls: [] });
    expect(callsFor(s, 2)[0]).toMatchObject({ callId: "c1", content: "09:00", status: "success" });
  });
});

describe("ChatStore", () => {
  it("applies queued events once per frame", () => {
    const frames: Array<() => void> = [];
    const store = new ChatStore((f) => frames.push(f));
    let renders = 0;
    store.subscribe(() => renders++);
    store.push(7, { type: "roundStarted", round: 1, messageId: 2 });
    for (let i = 0; i < 2000; i++) store.push(7, { type: "textDelta", messageId: 2, text: "x" });
    expect(frames).toHaveLength(1);
    expect(store.get(7).messages).toHaveLength(0);
    frames[0]?.();
    expect(renders).toBe(1);
    expect(store.get(7).messages[0]?.content).toHaveLength(2000);
  });

  it("shows a card at once, with everything that came before it, in order", () => {
    const frames: Array<() => void> = [];
    const store = new ChatStore((f) => frames.push(f));
    let renders = 0;
    store.subscribe(() => renders++);
    store.push(7, { type: "tool", event: { type: "beforeCall", chat: 7, seq: 1, callId: "c1", requestedName: "write_file", rawArgs: "{}" } });
    expect(store.get(7).calls).toHaveLength(0);
    store.push(7, {
      type: "tool",
      event: { type: "questionAsked", chat: 7, seq: 1, id: "q1", question: "Which file?", choices: [] },
    });
    // No frame was waited for: the question and the call before it are in, in one render.
    expect(store.get(7).calls.map((c) => c.callId)).toEqual(["c1"]);
    expect(store.get(7).questions.map((q) => q.id)).toEqual(["q1"]);
    expect(renders).toBe(1);
    // The frame that was asked for finds nothing left to apply.
    frames[0]?.();
    expect(renders).toBe(1);
  });
});

describe("edit and regenerate start from the right point (F-56)", () => {
  const msg = (id: number, role: "user" | "assistant"): TimelineMessage => timelineMessage(id, role, `m${id}`);
  const base = (): ChatState => ({
    ...emptyChat(1),
    messages: [msg(1, "user"), msg(2, "assistant"), msg(3, "assistant"), msg(4, "user"), msg(5, "assistant")],
    // Only `seq` and `messageId` matter here.
    calls: [{ seq: 1, messageId: 2 } as CallView, { seq: 2, messageId: 5 } as CallView],
  });

  it("regenerating an answer keeps the conversation up to its question, and that question's earlier calls go", () => {
    const s = startRegenerate(base(), 3);
    expect(s.messages.map((m) => m.id)).toEqual([1]);
    expect(s.calls).toEqual([]);
    expect(s.running).toBe(true);
    const later = startRegenerate(base(), 5);
    expect(later.messages.map((m) => m.id)).toEqual([1, 2, 3, 4]);
    expect(later.calls.map((c) => c.seq)).toEqual([1]);
  });

  it("editing a message keeps what came before it and shows the new version", () => {
    const s = startEdit(base(), 4, "better", 9);
    expect(s.messages.map((m) => m.content)).toEqual(["m1", "m2", "m3", "better"]);
    expect(s.messages[3]?.id).toBe(PENDING_USER_ID);
  });
});

describe("a history read in pages (F-71)", () => {
  /** Turn `n` (ids 3n+1…3n+3): a question, an answer calling a tool, and the tool's result with no recorded call. */
  function turn(n: number): ChatHistory["messages"] {
    const base = { chat: 7, parentId: null, siblings: [], status: "complete" as const, usage: null, createdAt: n };
    return [
      { ...base, id: 3 * n + 1, role: "user", content: `q${n}`, payload: null },
      { ...base, id: 3 * n + 2, role: "assistant", content: "", payload: { toolCalls: [{ id: `c${n}`, name: "echo", arguments: "{}" }] } },
      {
        ...base,
        id: 3 * n + 3,
        role: "tool",
        content: "",
        payload: { results: [{ callId: `c${n}`, name: "echo", content: `r${n}`, isError: false }] },
      },
    ];
  }
  const page = (turns: number[], earlier: number | null): ChatHistory => ({
    messages: turns.flatMap(turn),
    calls: [],
    running: false,
    revision: 1,
    earlier,
    task: null,
  });
  const shape = (s: ChatState) => ({
    messages: s.messages.map((m) => m.id),
    calls: s.calls.map((c) => [c.callId, c.messageId, c.content]),
  });

  it("pages put in front of each other make the timeline read whole, each call numbered once", () => {
    const whole = fromHistory(7, page([0, 1, 2], null));
    const last = fromHistory(7, page([2], 7));
    expect(last.earlier).toBe(7);
    const middle = withEarlier(last, page([1], 4));
    expect(middle.earlier).toBe(4);
    const all = withEarlier(middle, page([0], null));
    expect(all.earlier).toBeNull();
    expect(shape(all)).toEqual(shape(whole));
    expect(new Set(all.calls.map((c) => c.seq)).size).toBe(3);
  });

  it("a chat read again from its last page keeps the earlier messages it held, unless that page is not among them", () => {
    const held = fromHistory(7, page([0, 1, 2], null));
    const again = fromHistory(7, page([2, 3], 7));
    const kept = keepEarlier(held, again);
    expect(shape(kept)).toEqual(shape(fromHistory(7, page([0, 1, 2, 3], null))));
    expect(kept.earlier).toBeNull();
    // Partly read before: what it lacked is still to be read.
    const partly = fromHistory(7, page([1, 2], 4));
    expect(keepEarlier(partly, again).earlier).toBe(4);
    // Another branch: its last page stands alone, the rest is read again.
    const elsewhere = fromHistory(7, page([8, 9], 25));
    expect(keepEarlier(held, elsewhere)).toBe(elsewhere);
  });
});
