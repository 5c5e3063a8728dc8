import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setLanguage } from "../i18n";
import { appendOutput, applyEvent, type CallView, emptyChat, LIVE_OUTPUT_LIMIT } from "../timeline";
import type { Attachment, CallDecision, DecidedBy, ExecutionChoice, ResultChoice } from "../types";
import { finishedCall } from "./testCalls";
import { decisionLines, progressText, ToolCard } from "./ToolCard";
import { unmount } from "./testRoot";

let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
});
afterEach(async () => {
  await unmount(root);
  setLanguage("en");
});

/** A finished call with the given decisions (and images, if any). */
function finished(decision: CallDecision, decidedBy: DecidedBy, images?: Attachment[]): CallView {
  return finishedCall('{"command":"ls"}', { decision, decidedBy, ...(images ? { images } : {}) });
}

async function show(call: CallView, compact = false) {
  await act(() => {
    render(<ToolCard call={call} compact={compact} />, root);
  });
}

const line = (stage: "execution" | "result") => root.querySelector(`[data-decision="${stage}"]`)?.textContent ?? null;

describe("tool card decision lines", () => {
  const executions: Array<[ExecutionChoice, DecidedBy, string]> = [
    ["allow", "auto", "Allowed · by auto policy"],
    ["allow", "rule", "Allowed · by a rule"],
    ["allow", "record", "Allowed · by an earlier answer"],
    ["allowOnce", "user", "Allowed once · by you"],
    ["allowForChat", "user", "Allowed for this chat · by you"],
    ["alwaysAllow", "user", "Always allowed · by you"],
    ["editAndAllow", "user", "Edited and allowed · by you"],
    ["deny", "user", "Denied · by you"],
    ["deny", "policy", "Denied · by policy"],
    ["deny", "rule", "Denied · by a rule"],
    ["denyAndStop", "user", "Denied and stopped · by you"],
  ];
  for (const [execution, by, want] of executions) {
    it(`${execution} by ${by} reads “${want}”`, async () => {
      await show(finished({ execution, result: null }, by));
      expect(line("execution")).toBe(want);
      expect(line("result")).toBeNull();
      expect(root.querySelector(".tool-card-decision.is-denied") !== null).toBe(execution === "deny" || execution === "denyAndStop");
    });
  }

  const results: Array<[ResultChoice, string]> = [
    ["approve", "Result approved · by you"],
    ["editAndApprove", "Result edited · by you"],
    ["reject", "Result withheld · by you"],
  ];
  for (const [result, want] of results) {
    it(`result ${result} reads “${want}” on its own line, below the execution line`, async () => {
      await show(finished({ execution: "allowOnce", result }, "user"));
      const lines = [...root.querySelectorAll(".tool-card-decision")].map((l) => l.textContent);
      expect(lines).toEqual(["Allowed once · by you", want]);
    });
  }

  it("a reviewed call shows both lines, in the log's compact cards too", async () => {
    await show(finished({ execution: "allow", result: "reject" }, "rule"), true);
    expect(line("execution")).toBe("Allowed · by a rule");
    expect(line("result")).toBe("Result withheld · by you");
  });

  it("nothing decided: no lines; nobody named: just the decision", async () => {
    await show(finished({ execution: null, result: null }, "none"));
    expect(root.querySelector(".tool-card-decisions")).toBeNull();
    expect(decisionLines({ decision: { execution: "deny", result: null }, decidedBy: "none" })).toEqual([
      { stage: "execution", text: "Denied", allowed: false },
    ]);
    expect(decisionLines({ decision: { execution: null, result: "approve" }, decidedBy: "none" })).toEqual([
      { stage: "result", text: "Result approved · by you", allowed: true },
    ]);
  });

  it("says the same in Chinese", async () => {
    setLanguage("zh-CN");
    await show(finished({ execution: "allowOnce", result: "reject" }, "user"));
    expect(line("execution")).toBe("允许一次 · 由你决定");
    expect(line("result")).toBe("结果已扣留 · 由你决定");
  });
});

describe("tool card live output", () => {
  it("says how many earlier characters of a capped live output are not shown", async () => {
    let state = applyEvent(emptyChat(1), {
      type: "tool",
      event: { type: "beforeCall", chat: 1, seq: 1, callId: "c", requestedName: "shell", rawArgs: "{}" },
    });
    state = applyEvent(state, {
      type: "tool",
      event: { type: "outputDelta", chat: 1, seq: 1, stream: "stdout", text: "y".repeat(70_000), skipped: 0 },
    });
    const call = state.calls[0];
    if (!call) throw new Error("no call");
    await act(() => {
      render(<ToolCard call={call} />, root);
    });
    await act(async () => root.querySelector<HTMLButtonElement>(".tool-card-head")?.click());
    expect(root.querySelector(".output-dropped")?.textContent).toBe(`… ${70_000 - LIVE_OUTPUT_LIMIT} earlier characters not shown`);

    // Nothing dropped, no notice.
    const whole = { ...call, ...appendOutput({ output: "", outputDropped: 0 }, "short") };
    await act(() => {
      render(<ToolCard call={whole} />, root);
    });
    expect(root.querySelector(".output-dropped")).toBeNull();
    expect(root.textContent).toContain("short");
  });
});

describe("tool card images", () => {
  const dot = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==";
  const image: Attachment = { name: "image 1", kind: "image", mediaType: "image/png", data: dot };

  it("shows a tool's images, opens one at full size and closes it with Escape, focus back on the thumbnail", async () => {
    await show(finished({ execution: "allow", result: null }, "auto", [image]));
    const thumb = root.querySelector<HTMLButtonElement>("[data-role=tool-images] .attachment-view");
    expect(thumb?.querySelector("img")?.getAttribute("src")).toBe(`data:image/png;base64,${dot}`);
    thumb?.focus();
    await act(async () => thumb?.click());
    const viewer = document.querySelector("[data-role=image-viewer]");
    expect(viewer?.getAttribute("aria-label")).toBe("image 1");
    expect(document.activeElement?.textContent).toBe("Close");
    await act(async () => {
      document.activeElement?.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    });
    expect(document.querySelector("[data-role=image-viewer]")).toBeNull();
    expect(document.activeElement).toBe(thumb);
  });

  it("shows nothing extra for a call without images", async () => {
    await show(finished({ execution: "allow", result: null }, "auto"));
    expect(root.querySelector("[data-role=tool-images]")).toBeNull();
    expect(root.querySelector("[data-role=resource-links]")).toBeNull();
  });

  it("shows a linked resource apart from the images, to attach", async () => {
    const link: Attachment = {
      name: "Project notes",
      kind: "resourceLink",
      mediaType: "",
      data: "probe://notes.md",
      source: { type: "mcpResource", server: "probe", uri: "probe://notes.md" },
    };
    const call = finished({ execution: "allow", result: null }, "auto", [image, link]);
    await act(() => {
      render(<ToolCard call={call} onAttach={() => {}} />, root);
    });
    expect(root.querySelectorAll("[data-role=tool-images] .attachment")).toHaveLength(1);
    const links = root.querySelectorAll("[data-role=resource-links] .resource-link");
    expect(links).toHaveLength(1);
    expect(links[0]?.querySelector("button")?.textContent).toBe("Attach");
  });
});

describe("tool card progress", () => {
  function running(progress: number, total: number | null, message: string | null): CallView {
    let state = applyEvent(emptyChat(1), {
      type: "tool",
      event: { type: "beforeCall", chat: 1, seq: 1, callId: "c", requestedName: "probe__steps", rawArgs: '{"count":4}' },
    });
    state = applyEvent(state, { type: "tool", event: { type: "started", chat: 1, seq: 1, tool: "probe__steps", args: '{"count":4}' } });
    state = applyEvent(state, { type: "tool", event: { type: "progress", chat: 1, seq: 1, progress, total, message } });
    const call = state.calls[0];
    if (!call) throw new Error("no call");
    return call;
  }

  it("shows a bar and the part done when the server says how much there is", async () => {
    await show(running(1, 4, "Step 1 of 4"));
    const bar = root.querySelector<HTMLProgressElement>('[data-role="progress"] progress');
    expect(bar?.max).toBe(4);
    expect(bar?.value).toBe(1);
    expect(bar?.getAttribute("aria-label")).toBe("Step 1 of 4 · 25% done");
    expect(root.querySelector(".tool-card-progress-text")?.textContent).toBe("Step 1 of 4 · 25% done");
  });

  it("shows a count and a bar without an end when it does not", async () => {
    await show(running(2.5, null, null));
    const bar = root.querySelector('[data-role="progress"] progress');
    expect(bar?.hasAttribute("value")).toBe(false);
    expect(root.querySelector(".tool-card-progress-text")?.textContent).toBe("2.5 so far");
  });

  it("keeps a report past its total within the bar, and says it in the user's language", async () => {
    expect(progressText({ progress: 9, total: 4, message: null })).toBe("100% done");
    expect(progressText({ progress: 0, total: null, message: "Waiting until you finish on pay.example.com" })).toBe(
      "Waiting until you finish on pay.example.com",
    );
    setLanguage("zh-CN");
    expect(progressText({ progress: 1, total: 3, message: null })).toBe("已完成 33%");
  });

  it("shows no progress on a call that has ended", async () => {
    await show(finished({ execution: "allow", result: null }, "auto"));
    expect(root.querySelector('[data-role="progress"]')).toBeNull();
  });
});

describe("stopping one call", () => {
  it("a running call offers Stop, pressed from the keyboard; a finished one does not", async () => {
    let stopped = 0;
    const running: CallView = { ...finishedCall('{"label":"report"}', {}), status: "running" };
    await act(() => {
      render(<ToolCard call={running} onStop={() => (stopped += 1)} />, root);
    });
    const stop = root.querySelector<HTMLButtonElement>('[data-role="stop-call"]');
    expect(stop?.textContent).toBe("Stop this call");
    // A button: Enter and Space press it, as a click does.
    await act(() => {
      stop?.click();
    });
    expect(stopped).toBe(1);
    await act(() => {
      render(<ToolCard call={finishedCall('{"label":"report"}', {})} onStop={() => (stopped += 1)} />, root);
    });
    expect(root.querySelector('[data-role="stop-call"]')).toBeNull();
  });

  it("a call going on as its server's task says so, shows the task's status and can still be stopped", async () => {
    let stopped = 0;
    const goingOn: CallView = {
      ...finishedCall('{"label":"report"}', {}),
      status: "in_background",
      isError: false,
      progress: { progress: 0, total: null, message: "working on the report" },
    };
    await act(() => {
      render(<ToolCard call={goingOn} onStop={() => (stopped += 1)} />, root);
    });
    expect(root.querySelector('[data-role="in-background"]')?.textContent).toContain("goes on as a task on its server");
    expect(root.querySelector('[data-role="progress"]')?.textContent).toContain("working on the report");
    expect(root.querySelector(".tool-card-meta")?.textContent).toContain("Goes on in the background");
    await act(() => {
      root.querySelector<HTMLButtonElement>('[data-role="stop-call"]')?.click();
    });
    expect(stopped).toBe(1);
  });
});

describe("tool card: the chat's model lent to its server", () => {
  it("says the model answered the server, and shows what it was sent and what it wrote once the card is open", async () => {
    let state = applyEvent(emptyChat(1), {
      type: "tool",
      event: { type: "beforeCall", chat: 1, seq: 1, callId: "c", requestedName: "era__summarise", rawArgs: '{"passage":"rivers"}' },
    });
    const lent = {
      model: "mock-large",
      system: "You write one-line summaries.",
      messages: [{ role: "user" as const, text: "Summarise in one line: rivers" }],
      answer: "Rivers run to the sea.",
      at: 0,
      inputTokens: 11,
      outputTokens: 7,
    };
    state = applyEvent(state, { type: "tool", event: { type: "modelLent", chat: 1, seq: 1, lent } });
    const call = state.calls[0];
    if (!call) throw new Error("no call");
    expect(call.lent).toEqual([lent]);
    await show(call);
    expect(root.querySelector('[data-role="lent-model"]')?.textContent).toContain("answered this server 1 time(s)");
    expect(root.querySelector('[data-role="lent-exchange"]')).toBeNull();
    await act(async () => {
      root.querySelector<HTMLButtonElement>(".tool-card-head")?.click();
    });
    const exchange = root.querySelector('[data-role="lent-exchange"]');
    expect(exchange?.textContent).toContain("Sent to the model");
    expect(exchange?.textContent).toContain("mock-large · 11 in · 7 out");
    // Each text under who it speaks as, as on the card that asked the user.
    const part = (who: string) => exchange?.querySelector(`[data-sampled=${who}]`)?.textContent;
    expect(part("system")).toBe("Instructions for the modelYou write one-line summaries.");
    expect(part("user")).toBe("era__summarise writesSummarise in one line: rivers");
    expect(part("answer")).toBe("The model's answer, for the serverRivers run to the sea.");
    // The same exchange told twice (a reload, then its event) is one.
    const again = applyEvent(state, { type: "tool", event: { type: "modelLent", chat: 1, seq: 1, lent } });
    expect(again.calls[0]?.lent).toEqual([lent]);
  });
});

describe("tool card: what its server asked the user", () => {
  it("says the server asked, and shows each question, how it ended and the answer under the form's labels once the card is open", async () => {
    let state = applyEvent(emptyChat(1), {
      type: "tool",
      event: { type: "beforeCall", chat: 1, seq: 1, callId: "c", requestedName: "era__ask_twice", rawArgs: '{"topic":"rivers"}' },
    });
    const form = {
      id: "q1",
      note: null,
      message: "What is your name?",
      kind: {
        mode: "form" as const,
        schema: { type: "object", properties: { name: { type: "string", title: "Your name" }, pin: { type: "string" } } },
      },
      outcome: "accepted" as const,
      answer: { name: "Ada\u200b", pin: "[redacted]", news: false },
      at: 1,
    };
    const page = {
      id: "q2",
      note: null,
      message: "Pay here",
      kind: { mode: "url" as const, url: "https://pay.example/checkout", host: "pay.example" },
      outcome: "declined" as const,
      answer: null,
      at: 2,
    };
    state = applyEvent(state, { type: "tool", event: { type: "serverAsked", chat: 1, seq: 1, asked: form } });
    state = applyEvent(state, { type: "tool", event: { type: "serverAsked", chat: 1, seq: 1, asked: page } });
    const call = state.calls[0];
    if (!call) throw new Error("no call");
    await show(call);
    expect(root.querySelector('[data-role="server-asked"]')?.textContent).toContain("asked you 2 question(s)");
    expect(root.querySelector('[data-role="asked-question"]')).toBeNull();
    await act(async () => {
      root.querySelector<HTMLButtonElement>(".tool-card-head")?.click();
    });
    const [first, second] = [...root.querySelectorAll('[data-role="asked-question"]')];
    expect(first?.querySelector(".section-label")?.textContent).toBe("era__ask_twice asked youanswered");
    expect(first?.querySelector(".question-text")?.textContent).toBe("What is your name?");
    // Under the form's own label, an invisible character revealed; a secret field withheld.
    expect(first?.querySelector('[data-field="name"] dt')?.textContent).toBe("Your name");
    expect(first?.querySelector('[data-field="name"] dd .hidden-char')).not.toBeNull();
    expect(first?.querySelector('[data-field="pin"] dd')?.textContent).toBe("[redacted]");
    expect(first?.querySelector('[data-field="news"] dd')?.textContent).toBe("No");
    expect(second?.getAttribute("data-outcome")).toBe("declined");
    expect(second?.textContent).toContain("https://pay.example/checkout");
    expect(second?.textContent).toContain("declined");
    expect(second?.querySelector('[data-role="asked-answer"]')).toBeNull();
    // The same question told twice (a reload, then its event) is one.
    const again = applyEvent(state, { type: "tool", event: { type: "serverAsked", chat: 1, seq: 1, asked: form } });
    expect(again.calls[0]?.asked).toEqual([form, page]);
    // A request for the model let through that never got its answer says why.
    const unanswered = {
      id: "q3",
      note: "the chat's model did not answer: the provider refused the key",
      message: "The server asks the chat's model to answer this.",
      kind: { mode: "sampling" as const, system: null, messages: [{ role: "user" as const, text: "Summarise" }], maxTokens: 100, model: "m" },
      outcome: "accepted" as const,
      answer: null,
      at: 3,
    };
    const later = applyEvent(state, { type: "tool", event: { type: "serverAsked", chat: 1, seq: 1, asked: unanswered } });
    const lastCall = later.calls[0];
    if (!lastCall) throw new Error("no call");
    await show(lastCall);
    // Still open from before: the card keeps its state across the new event.
    const third = root.querySelectorAll('[data-role="asked-question"]')[2];
    expect(third?.querySelector(".section-label")?.textContent).toBe("era__ask_twice asked to use the chat's modelanswered");
    expect(third?.querySelector('[data-role="asked-note"]')?.textContent).toBe("the chat's model did not answer: the provider refused the key");
    expect(third?.querySelector("[data-sampled=user]")?.textContent).toContain("Summarise");
  });
});
