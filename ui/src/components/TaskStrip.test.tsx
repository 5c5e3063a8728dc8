import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { TaskState } from "../types";

vi.mock("../api", () => ({
  stopTask: vi.fn(() => Promise.resolve(true)),
}));

import * as api from "../api";
import { commandError } from "../testing/backend";
import { applyEvent, emptyChat, fromHistory } from "../timeline";
import { unmount } from "./testRoot";
import { TaskStrip } from "./TaskStrip";

const stopTask = vi.mocked(api.stopTask);

const grant = {
  steps: [
    { purpose: "read the bill", tool: "read_file", maxCalls: 1, targets: [] },
    { purpose: "pay it", tool: "pay_bill", maxCalls: 2, targets: ["DE89370400440532013000"] },
    { purpose: "mail the receipt", tool: "send_mail", maxCalls: 1, targets: ["bob@example.com"] },
  ],
  span: { type: "turn" as const },
};

function task(calls: number[][]): TaskState {
  return { grant, calls };
}

let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
  stopTask.mockReset();
  stopTask.mockResolvedValue(true);
});
afterEach(async () => {
  await unmount(root);
});

async function mount(state: TaskState) {
  await act(() => {
    render(
      <section data-chat="7">
        <TaskStrip chat={7} task={state} />
        <div class="approval-card is-active" tabIndex={0} />
      </section>,
      root,
    );
  });
}

describe("the plan in force under the chat's header", () => {
  it("ticks off each step with the calls that did it and says what is left", async () => {
    await mount(task([[3], [4], []]));
    const steps = [...root.querySelectorAll(".task-step")];
    expect(steps.map((s) => s.classList.contains("is-done"))).toEqual([true, false, false]);
    expect(steps[0]?.textContent).toContain("read the bill");
    expect(steps[0]?.textContent).toContain("read_file · 1 of 1 call(s)");
    expect(steps[0]?.textContent).toContain("by call #3");
    expect(steps[1]?.textContent).toContain("under way");
    expect(steps[1]?.textContent).toContain("pay_bill · 1 of 2 call(s)");
    expect(steps[2]?.textContent).toContain("not started");
    expect(steps[2]?.textContent).not.toContain("by call");
    expect(root.querySelector("[data-role=task-left]")?.textContent).toBe("2 call(s) left · until this answer ends");
  });

  it("says when a time box ends", async () => {
    const ends = new Date();
    ends.setHours(14, 5, 0, 0);
    await mount({ grant: { ...grant, span: { type: "until", endsAtMs: ends.getTime() } }, calls: [[], [], []] });
    expect(root.querySelector("[data-role=task-left]")?.textContent).toMatch(/4 call\(s\) left · until (02:05 PM|14:05) or this answer ends/);
  });

  it("Stop ends the plan, from the keyboard too, and a failure is shown beside it", async () => {
    await mount(task([[], [], []]));
    const stop = root.querySelector<HTMLButtonElement>("[data-role=task-stop]");
    if (!stop) throw new Error("no Stop");
    stop.focus();
    // A focused button is pressed with Enter or Space: the browser turns either into a click.
    await act(async () => {
      stop.click();
    });
    await act(async () => {});
    expect(stopTask).toHaveBeenCalledWith(7);
    // A card waiting in the chat gets the keyboard back: it is what the user answers next.
    expect(document.activeElement).toBe(root.querySelector(".approval-card"));
    stopTask.mockRejectedValueOnce(commandError("internal", "the chat is gone"));
    await act(async () => {
      stop.click();
    });
    await act(async () => {});
    expect(root.querySelector("[role=alert]")?.textContent).toContain("the chat is gone");
  });
});

describe("the chat's task in the timeline", () => {
  it("follows the backend's events and ends with the turn", () => {
    let s = applyEvent(emptyChat(7), { type: "tool", event: { type: "taskChanged", chat: 7, task: task([[], [], []]) } });
    expect(s.task?.calls).toEqual([[], [], []]);
    s = applyEvent(s, { type: "tool", event: { type: "taskChanged", chat: 7, task: task([[2], [], []]) } });
    expect(s.task?.calls[0]).toEqual([2]);
    const stopped = applyEvent(s, { type: "tool", event: { type: "taskChanged", chat: 7, task: null } });
    expect(stopped.task).toBeNull();
    const finished = applyEvent(s, {
      type: "turnFinished",
      outcome: { type: "stopped", usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    });
    expect(finished.task).toBeNull();
  });

  it("is read back with the chat's history, so a window opened mid-task shows it", () => {
    const history = { messages: [], calls: [], running: true, revision: 3, earlier: null, task: task([[5], [], []]) };
    expect(fromHistory(7, history).task?.calls).toEqual([[5], [], []]);
  });
});
