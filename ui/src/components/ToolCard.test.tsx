import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { appendOutput, emptyChat, applyEvent } from "../timeline";
import { ToolCard } from "./ToolCard";

let root: HTMLElement;
afterEach(() => render(null, root));

describe("tool card live output", () => {
  it("says how many earlier characters of a capped live output are not shown", async () => {
    let state = applyEvent(emptyChat(1), {
      type: "tool",
      event: { type: "beforeCall", chat: 1, seq: 1, callId: "c", requestedName: "shell", rawArgs: "{}" },
    });
    state = applyEvent(state, { type: "tool", event: { type: "outputDelta", chat: 1, seq: 1, stream: "stdout", text: "y".repeat(70_000) } });
    const call = state.calls[0];
    if (!call) throw new Error("no call");
    root = document.createElement("div");
    document.body.replaceChildren(root);
    await act(() => {
      render(<ToolCard call={call} />, root);
    });
    await act(async () => root.querySelector<HTMLButtonElement>(".tool-card-head")?.click());
    expect(root.querySelector(".output-dropped")?.textContent).toBe(`… ${70_000 - 65_536} earlier characters not shown`);

    // Nothing dropped, no notice.
    const whole = { ...call, ...appendOutput({ output: "", outputDropped: 0 }, "short") };
    await act(() => {
      render(<ToolCard call={whole} />, root);
    });
    expect(root.querySelector(".output-dropped")).toBeNull();
    expect(root.textContent).toContain("short");
  });
});
