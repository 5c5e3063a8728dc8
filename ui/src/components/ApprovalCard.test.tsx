import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { PendingApproval } from "../types";

vi.mock("../api", () => ({
  decide: vi.fn(() => Promise.resolve()),
  answerQuestion: vi.fn(() => Promise.resolve()),
}));

import * as api from "../api";
import { ApprovalCard, QuestionCard } from "./ApprovalCard";

const decide = vi.mocked(api.decide);

const execution: PendingApproval = {
  id: "ap-9",
  chat: 3,
  seq: 2,
  callId: "c",
  tool: "edit_file",
  group: "files",
  createdAt: 0,
  request: {
    kind: "execution",
    arguments: { path: "a.txt", text: "hi" },
    preview: { type: "diff", path: "a.txt", diff: "--- a\n+++ b\n-old\n+new" },
    policy: "ask-always",
    reason: "edits files",
    suggestedPattern: "*.txt",
  },
};

const result: PendingApproval = {
  ...execution,
  id: "ap-10",
  request: { kind: "result", textForModel: "short", fullOutput: "short and long", status: "success" },
};

let root: HTMLElement;
const onDecided = vi.fn();

beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
  decide.mockReset();
  decide.mockResolvedValue(undefined);
  onDecided.mockReset();
});
afterEach(() => {
  render(null, root);
});

async function mount(a: PendingApproval) {
  await act(() => {
    render(<ApprovalCard approval={a} active position={1} total={2} onDecided={onDecided} />, root);
  });
  const card = root.querySelector<HTMLElement>(".approval-card");
  if (!card) throw new Error("no card");
  return card;
}

async function key(target: HTMLElement, k: string) {
  await act(async () => {
    target.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true }));
  });
}

function button(label: string): HTMLButtonElement {
  const b = [...root.querySelectorAll("button")].find((x) => x.textContent?.includes(label));
  if (!b) throw new Error(`no button ${label}`);
  return b;
}

describe("execution approval card", () => {
  it("shows tool, group, policy, reason, diff and arguments, and takes focus", async () => {
    const card = await mount(execution);
    expect(card.textContent).toContain("edit_file wants to run");
    expect(card.textContent).toContain("Group: files");
    expect(card.textContent).toContain("Policy: ask-always");
    expect(card.textContent).toContain("edits files");
    expect(card.textContent).toContain("1 of 2 waiting");
    expect(card.querySelector(".diff-add")?.textContent).toContain("+new");
    expect(card.querySelector(".diff-del")?.textContent).toContain("-old");
    expect(card.textContent).toContain('"path": "a.txt"');
    expect(document.activeElement).toBe(card);
  });

  it("Enter allows once", async () => {
    const card = await mount(execution);
    await key(card, "Enter");
    expect(decide).toHaveBeenCalledWith(3, "ap-9", { kind: "execution", decision: { type: "allowOnce" } });
    expect(onDecided).toHaveBeenCalledWith("ap-9");
  });

  it("A allows for this chat", async () => {
    const card = await mount(execution);
    await key(card, "a");
    expect(decide).toHaveBeenCalledWith(3, "ap-9", { kind: "execution", decision: { type: "allowForChat" } });
  });

  it("Esc denies with the typed reason", async () => {
    const card = await mount(execution);
    const reason = card.querySelector<HTMLInputElement>('[data-role="reason"]');
    if (!reason) throw new Error("no reason field");
    await act(async () => {
      reason.value = "not that file";
      reason.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await key(reason, "Escape");
    expect(decide).toHaveBeenCalledWith(3, "ap-9", { kind: "execution", decision: { type: "deny", reason: "not that file" } });
  });

  it("always allow sends the chosen scope and the edited pattern", async () => {
    await mount(execution);
    await act(async () => button("Always allow").click());
    const every = [...root.querySelectorAll<HTMLInputElement>('input[type="radio"]')][1];
    const pattern = root.querySelector<HTMLInputElement>('[data-role="pattern"]');
    expect(pattern?.value).toBe("*.txt");
    await act(async () => {
      every?.click();
      if (pattern) {
        pattern.value = "docs/*.txt";
        pattern.dispatchEvent(new Event("input", { bubbles: true }));
      }
    });
    await act(async () => button("Create rule").click());
    expect(decide).toHaveBeenCalledWith(3, "ap-9", {
      kind: "execution",
      decision: { type: "alwaysAllow", scope: "allChats", pattern: "docs/*.txt" },
    });
  });

  it("edit arguments sends the parsed JSON and shows the backend's refusal on the card", async () => {
    decide.mockRejectedValueOnce("arguments do not match the schema: text is required");
    await mount(execution);
    await act(async () => button("Edit arguments").click());
    const editor = root.querySelector<HTMLTextAreaElement>('[data-role="args"]');
    await act(async () => {
      if (editor) {
        editor.value = '{"path":"b.txt"}';
        editor.dispatchEvent(new Event("input", { bubbles: true }));
      }
    });
    await act(async () => button("Allow with these arguments").click());
    expect(decide).toHaveBeenCalledWith(3, "ap-9", { kind: "execution", decision: { type: "editAndAllow", arguments: { path: "b.txt" } } });
    expect(root.textContent).toContain("text is required");
    expect(onDecided).not.toHaveBeenCalled();
    // Enter inside the editor does not allow.
    if (editor) await key(editor, "Enter");
    expect(decide).toHaveBeenCalledTimes(1);
  });

  it("deny and stop", async () => {
    await mount(execution);
    await act(async () => button("Deny and stop").click());
    expect(decide).toHaveBeenCalledWith(3, "ap-9", { kind: "execution", decision: { type: "denyAndStop", reason: null } });
  });
});

describe("result approval card", () => {
  it("shows the model's text and the full output; approves, edits, rejects", async () => {
    const card = await mount(result);
    expect(card.textContent).toContain("short");
    expect(card.querySelector("details")?.textContent).toContain("short and long");
    await key(card, "Enter");
    expect(decide).toHaveBeenLastCalledWith(3, "ap-10", { kind: "result", decision: { type: "approve" } });
  });

  it("edit then approve sends the edited text", async () => {
    await mount(result);
    await act(async () => button("Edit, then approve").click());
    const area = root.querySelector<HTMLTextAreaElement>('[data-role="result"]');
    await act(async () => {
      if (area) {
        area.value = "redacted";
        area.dispatchEvent(new Event("input", { bubbles: true }));
      }
    });
    await act(async () => button("Approve edited text").click());
    expect(decide).toHaveBeenLastCalledWith(3, "ap-10", { kind: "result", decision: { type: "editAndApprove", text: "redacted" } });
  });

  it("Esc withholds the result", async () => {
    const card = await mount(result);
    await key(card, "Escape");
    expect(decide).toHaveBeenLastCalledWith(3, "ap-10", { kind: "result", decision: { type: "reject", reason: null } });
  });
});

describe("question card", () => {
  it("answers with a choice", async () => {
    const answered = vi.fn();
    await act(() => {
      render(<QuestionCard chat={3} id="q1" question="Which?" choices={["main", "dev"]} onAnswered={answered} />, root);
    });
    await act(async () => button("dev").click());
    expect(api.answerQuestion).toHaveBeenCalledWith(3, "q1", "dev");
    expect(answered).toHaveBeenCalledWith("q1");
  });
});
