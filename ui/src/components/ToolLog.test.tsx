import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chatStore } from "../store";
import { emptyChat } from "../timeline";
import { finishedCall, timelineMessage } from "./testCalls";
import { ToolLog } from "./ToolLog";
import { VIRTUALIZE_FROM } from "./VirtualList";
import { layout } from "./testLayout";
import { unmount } from "./testRoot";

const CHAT = 7;
let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
});
let restore = () => {};
afterEach(async () => {
  await unmount(root);
  restore();
  restore = () => {};
  chatStore.delete(CHAT);
});

/** A chat of `turns` turns, each a question and an answer that made one call. */
function session(turns: number) {
  const state = emptyChat(CHAT);
  for (let n = 1; n <= turns; n++) {
    state.messages.push(timelineMessage(2 * n - 1, "user", `question ${n}`), timelineMessage(2 * n, "assistant", `answer ${n}`));
    state.calls.push({ ...finishedCall(`{"command":"echo ${n}"}`, { preview: `out ${n}` }), seq: n, callId: `c${n}`, messageId: 2 * n });
  }
  chatStore.set(CHAT, state);
}

async function show() {
  await act(() => {
    render(<ToolLog chat={CHAT} onClose={() => {}} />, root);
  });
}

const turnTexts = () => Array.from(root.querySelectorAll(".log-turn-text")).map((e) => e.textContent);

describe("tool-chain log", () => {
  it("lists every turn of a short session with its calls", async () => {
    session(3);
    await show();
    expect(turnTexts()).toEqual(["question 1", "question 2", "question 3"]);
    expect(root.querySelectorAll(".log-turn .tool-card")).toHaveLength(3);
  });

  it("shows a call a server's view made beside the model's, saying whose view made it", async () => {
    session(1);
    chatStore.update(CHAT, (s) => {
      const parent = s.calls[0];
      if (!parent) return s;
      const shown = { ...parent, view: { server: "clock", uri: "ui://clock/app.html" } };
      const made = { ...parent, seq: 2, callId: "view-c1-1", viewOf: 1 };
      return { ...s, calls: [shown, made] };
    });
    await show();
    const cards = [...root.querySelectorAll(".log-turn .tool-card")];
    expect(cards).toHaveLength(2);
    expect(cards[0]?.querySelector("[data-role=made-by-view]")).toBeNull();
    expect(cards[1]?.querySelector("[data-role=made-by-view]")?.textContent).toBe("Made by the view of clock, not by the model");
  });

  it("renders only the newest turns of a long session, and follows the new ones", async () => {
    restore = layout();
    const turns = VIRTUALIZE_FROM * 4;
    session(turns);
    await show();
    // The log's own scroll listener reads the new position on the next frame.
    await act(() => new Promise((r) => requestAnimationFrame(() => r(undefined))));
    const shown = turnTexts();
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(VIRTUALIZE_FROM);
    expect(shown.at(-1)).toBe(`question ${turns}`);
    expect(root.querySelector(".log-body")?.textContent).toContain(`Turn ${turns}`);

    await act(() => {
      session(turns + 1);
    });
    expect(turnTexts().at(-1)).toBe(`question ${turns + 1}`);
    expect(turnTexts().length).toBeLessThan(VIRTUALIZE_FROM);

    // Scrolled to the top, the log stays there while calls arrive.
    const body = root.querySelector<HTMLElement>(".log-body");
    if (!body) throw new Error("no log body");
    body.scrollTop = 0;
    await act(async () => {
      body.dispatchEvent(new Event("scroll"));
      await new Promise((r) => requestAnimationFrame(() => r(undefined)));
    });
    await act(() => {
      session(turns + 2);
    });
    expect(turnTexts()[0]).toBe("question 1");
    expect(turnTexts()).not.toContain(`question ${turns + 2}`);
    expect(body.scrollTop).toBe(0);
  });
});
