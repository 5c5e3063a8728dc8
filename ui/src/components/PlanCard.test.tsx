import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { PendingApproval } from "../types";

vi.mock("../api", () => ({
  answerApproval: vi.fn(() => Promise.resolve()),
}));

import * as api from "../api";
import { ApprovalCard } from "./ApprovalCard";
import { unmount } from "./testRoot";
import { commandError } from "../testing/backend";

const answer = vi.mocked(api.answerApproval);

const proposal = {
  steps: [
    { purpose: "read the bill", tool: "read_file", maxCalls: 1, targets: [] },
    { purpose: "pay it", tool: "pay_bill", maxCalls: 1, targets: ["DE89370400440532013000", "bank.example"] },
  ],
};

function planApproval(exposed: boolean): PendingApproval {
  return {
    id: "ap-plan",
    chat: 7,
    seq: 1,
    callId: "p1",
    tool: "propose_plan",
    group: "chat",
    createdAt: 0,
    request: {
      kind: "execution",
      arguments: proposal,
      preview: null,
      policy: "ask-always",
      reason: {
        type: "plan",
        shown: {
          proposal,
          exposed,
          marks: [
            { step: 1, target: "DE89370400440532013000", byUser: true, sources: [] },
            {
              step: 1,
              target: "bank.example",
              byUser: false,
              sources: exposed ? [{ type: "web", url: "https://bills.example/june", host: "bills.example" }] : [],
            },
          ],
        },
      },
      ruleSubject: "args",
      suggestedPattern: null,
    },
  };
}

let root: HTMLElement;
const onDecided = vi.fn();

beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
  answer.mockReset();
  answer.mockResolvedValue(undefined);
  onDecided.mockReset();
});
afterEach(async () => {
  await unmount(root);
});

async function mount(exposed = false, unconfined?: "off" | "unavailable" | "partial") {
  const approval = planApproval(exposed);
  if (unconfined && approval.request.kind === "execution" && approval.request.reason.type === "plan") {
    approval.request.reason.shown.unconfined = unconfined;
  }
  await act(() => {
    render(<ApprovalCard approval={approval} active position={1} total={1} onDecided={onDecided} />, root);
  });
  const card = root.querySelector<HTMLElement>(".plan-card");
  if (!card) throw new Error("no plan card");
  return card;
}

async function key(target: HTMLElement, k: string) {
  await act(async () => {
    target.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true }));
  });
}

async function click(el: HTMLElement) {
  await act(async () => {
    el.click();
  });
}

describe("the plan card", () => {
  it("says before approval that steps running commands will still ask where the sandbox cannot hold them", async () => {
    await mount(false);
    expect(root.querySelector("[data-unconfined]")).toBeNull();
    await unmount(root);
    await mount(false, "off");
    const note = root.querySelector("[data-unconfined]")?.textContent ?? "";
    expect(note).toContain("Steps that run commands will still ask for each command");
    expect(note).toContain("run without the sandbox");
    await unmount(root);
    await mount(false, "partial");
    expect(root.querySelector("[data-unconfined]")?.textContent).toContain("has no namespaces");
  });

  it("reads as a checklist and Enter approves the plan as shown", async () => {
    const card = await mount();
    expect(document.activeElement).toBe(card);
    const steps = [...root.querySelectorAll(".plan-step")].map((li) => li.querySelector(".plan-purpose")?.textContent);
    expect(steps).toEqual(["read the bill", "pay it"]);
    expect(root.textContent).toContain("pay_bill · up to 1 call(s)");
    expect(root.querySelector(".plan-exposed")).toBeNull();
    await key(card, "Enter");
    expect(answer).toHaveBeenCalledWith(7, "ap-plan", { kind: "execution", decision: { type: "allowOnce" } });
    expect(onDecided).toHaveBeenCalledWith("ap-plan");
  });

  it("narrows with the keyboard: a step unticked, a target removed, then Enter on the checkbox", async () => {
    await mount();
    const first = root.querySelector<HTMLInputElement>(".plan-step input[type=checkbox]");
    if (!first) throw new Error("no checkbox");
    first.focus();
    // Space on a focused checkbox toggles it, as the browser does.
    await click(first);
    expect(first.checked).toBe(false);
    const remove = root.querySelector<HTMLButtonElement>('button[aria-label="Remove bank.example from the plan"]');
    if (!remove) throw new Error("no remove button");
    await click(remove);
    expect(root.textContent).not.toContain("bank.example");
    await key(first, "Enter");
    expect(answer).toHaveBeenCalledWith(7, "ap-plan", {
      kind: "execution",
      decision: {
        type: "editAndAllow",
        arguments: { steps: [{ purpose: "pay it", tool: "pay_bill", maxCalls: 1, targets: ["DE89370400440532013000"] }] },
      },
    });
  });

  it("Escape declines, and the task goes on call by call", async () => {
    const card = await mount();
    await key(card, "Escape");
    expect(answer).toHaveBeenCalledWith(7, "ap-plan", { kind: "execution", decision: { type: "deny", reason: null } });
  });

  it("says at the top when the plan came after the chat read content from outside, and marks what a page named", async () => {
    await mount(true);
    expect(root.querySelector(".plan-exposed")?.textContent).toContain("after the chat read content from outside");
    const untrusted = root.querySelector(".plan-target.is-untrusted");
    expect(untrusted?.textContent).toContain("bank.example");
    expect(untrusted?.textContent).toContain("named by https://bills.example/june");
    expect(root.querySelector(".plan-mark--user")?.textContent).toBe("you wrote it");
  });

  it("shows a refusal and keeps waiting", async () => {
    answer.mockRejectedValueOnce(commandError("invalid", "a plan is approved as shown or with parts of it removed"));
    const card = await mount();
    await key(card, "Enter");
    expect(root.querySelector('[role="alert"]')?.textContent).toContain("approved as shown");
    expect(onDecided).not.toHaveBeenCalled();
  });
  it("names the tools whose results may give a step's targets", async () => {
    const steps = [
      { purpose: "look Alice up", tool: "lookup_contact", maxCalls: 1, targets: [] },
      { purpose: "mail her the notes", tool: "send_mail", maxCalls: 1, targets: [], from: ["lookup_contact"] },
    ];
    const approval = planApproval(false);
    if (approval.request.kind !== "execution" || approval.request.reason.type !== "plan") throw new Error("not a plan");
    approval.request.arguments = { steps };
    approval.request.reason.shown = { proposal: { steps }, exposed: false, marks: [] };
    await act(() => {
      render(<ApprovalCard approval={approval} active position={1} total={1} onDecided={onDecided} />, root);
    });
    const card = root.querySelector<HTMLElement>(".plan-card");
    if (!card) throw new Error("no plan card");
    expect(card.querySelector(".plan-from")?.textContent).toContain("the results of lookup_contact give");
    expect(card.textContent?.split("reaches no recipient").length).toBe(2);
    await key(card, "Enter");
    const sent = answer.mock.calls[0];
    // As shown: the plan runs as proposed, its sources with it.
    expect(sent?.[2]).toEqual({ kind: "execution", decision: { type: "allowOnce" } });
  });
});

describe("a plan taller than the chat's view", () => {
  it("opens at its top, not at its end", async () => {
    // jsdom lays nothing out: the view is 400 px tall, the card 2,000.
    const view = document.createElement("div");
    view.className = "chat-scroll";
    Object.defineProperty(view, "clientHeight", { configurable: true, value: 400 });
    document.body.replaceChildren(view);
    view.appendChild(root);
    const scrolled = vi.fn();
    const offsetHeight = Object.getOwnPropertyDescriptor(HTMLElement.prototype, "offsetHeight");
    Object.defineProperty(HTMLElement.prototype, "offsetHeight", {
      configurable: true,
      get(this: HTMLElement) {
        return this.classList.contains("plan-card") ? 2000 : 0;
      },
    });
    Object.defineProperty(HTMLElement.prototype, "scrollIntoView", { configurable: true, writable: true, value: scrolled });
    try {
      const card = await mount();
      expect(document.activeElement).toBe(card);
      expect(scrolled).toHaveBeenCalledWith({ block: "start" });
      expect(scrolled.mock.contexts[0]).toBe(card);
    } finally {
      if (offsetHeight) Object.defineProperty(HTMLElement.prototype, "offsetHeight", offsetHeight);
      delete (HTMLElement.prototype as { scrollIntoView?: unknown }).scrollIntoView;
    }
  });
});
