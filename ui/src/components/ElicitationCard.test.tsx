import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { PendingElicitation } from "../types";

vi.mock("../api", () => ({
  answerElicitation: vi.fn(() => Promise.resolve()),
  openExternal: vi.fn(() => Promise.resolve()),
}));

import * as api from "../api";
import { commandError } from "../testing/backend";
import { ElicitationCard } from "./ElicitationCard";
import { unmount } from "./testRoot";

const answer = vi.mocked(api.answerElicitation);
const openExternal = vi.mocked(api.openExternal);

const form: PendingElicitation = {
  id: "el-1",
  chat: 5,
  seq: 3,
  server: "forms",
  message: "Please provide your registration information:",
  kind: {
    mode: "form",
    schema: {
      type: "object",
      properties: {
        username: { type: "string", title: "Username" },
        newsletter: { type: "boolean", title: "Newsletter", default: false },
      },
      required: ["username"],
    },
  },
  createdAt: 0,
};

const page: PendingElicitation = {
  ...form,
  id: "el-2",
  message: "Connect your account",
  kind: { mode: "url", url: "https://pay.example.com/connect?session=abc", host: "pay.example.com" },
};

let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
  answer.mockReset();
  answer.mockResolvedValue(undefined);
  openExternal.mockClear();
});
afterEach(async () => {
  await unmount(root);
});

function type(input: HTMLInputElement | null, text: string) {
  if (!input) throw new Error("no input");
  input.value = text;
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

describe("a server's question", () => {
  it("says which server asks, takes the keyboard in its first field, and sends the form on Enter", async () => {
    const answered = vi.fn();
    await act(() => {
      render(<ElicitationCard elicitation={form} onAnswered={answered} />, root);
    });
    expect(root.querySelector(".approval-head")?.textContent).toBe("The MCP server forms asks you");
    const first = root.querySelector<HTMLInputElement>("[data-field=username] input");
    expect(document.activeElement).toBe(first);
    // Enter with the field empty: the field says what is missing, nothing is sent.
    await act(async () => {
      root.querySelector("form")?.requestSubmit();
    });
    expect(root.querySelector("[data-field=username] .inline-error")?.textContent).toBe("Fill this in.");
    expect(answer).not.toHaveBeenCalled();
    await act(async () => {
      type(first, "ada");
    });
    await act(async () => {
      root.querySelector("form")?.requestSubmit();
    });
    expect(answer).toHaveBeenCalledWith(5, "el-1", { action: "accept", content: { username: "ada", newsletter: false } });
    expect(answered).toHaveBeenCalledWith("el-1");
  });

  it("flags a form that asks for a secret, which the spec says a form must not", async () => {
    await act(() => {
      render(<ElicitationCard elicitation={form} onAnswered={() => {}} />, root);
    });
    expect(root.querySelector("[data-role=elicit-secret-warning]")).toBeNull();
    await unmount(root);
    const asks: PendingElicitation = {
      ...form,
      id: "el-3",
      kind: { mode: "form", schema: { type: "object", properties: { apiKey: { type: "string", title: "API key" } } } },
    };
    await act(() => {
      render(<ElicitationCard elicitation={asks} onAnswered={() => {}} />, root);
    });
    expect(root.querySelector("[data-role=elicit-secret-warning]")?.textContent).toContain("must not ask for secrets in a form");
    expect(root.querySelector<HTMLInputElement>("[data-field=apiKey] input")?.type).toBe("password");
  });

  it("declines on Escape and keeps the card when the backend refuses", async () => {
    answer.mockRejectedValueOnce(commandError("notFound", "no question with id el-1 is waiting"));
    await act(() => {
      render(<ElicitationCard elicitation={form} onAnswered={() => {}} />, root);
    });
    const card = root.querySelector<HTMLElement>("[data-elicitation]");
    await act(async () => {
      document.activeElement?.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true }));
    });
    expect(answer).toHaveBeenCalledWith(5, "el-1", { action: "decline" });
    expect(card?.querySelector("[role=alert]")?.textContent).toBe("It does not exist any more: no question with id el-1 is waiting");
  });

  it("shows a page's whole address before it opens, and opens only on the button", async () => {
    await act(() => {
      render(<ElicitationCard elicitation={page} onAnswered={() => {}} />, root);
    });
    expect(root.querySelector("[data-role=elicit-url]")?.textContent).toBe("https://pay.example.com/connect?session=abc");
    expect(openExternal).not.toHaveBeenCalled();
    const open = root.querySelector<HTMLButtonElement>("[data-role=elicit-open]");
    expect(open?.textContent).toBe("Open pay.example.com in the browser");
    await act(async () => {
      open?.click();
    });
    expect(openExternal).toHaveBeenCalledWith("https://pay.example.com/connect?session=abc");
    expect(answer).toHaveBeenCalledWith(5, "el-2", { action: "accept", content: null });
  });

  it("shows every text a server would send the model, sends nothing on a stray Enter, and lets the model answer only on its button", async () => {
    const sampling: PendingElicitation = {
      ...form,
      id: "el-4",
      server: "notes",
      message: "The server asks the chat's model to answer this.",
      kind: {
        mode: "sampling",
        system: "You write one-line summaries.",
        messages: [
          { role: "user", text: "Summarise: rivers\u200b and lakes" },
          { role: "assistant", text: "Sure." },
        ],
        maxTokens: 200,
        model: "gpt-4o · Work",
      },
    };
    await act(() => {
      render(<ElicitationCard elicitation={sampling} onAnswered={() => {}} />, root);
    });
    expect(root.querySelector(".approval-head")?.textContent).toBe("The MCP server notes asks to use the chat's model");
    const shown = root.querySelector("[data-role=elicit-sampling]");
    expect(shown?.textContent).toContain("Only what is shown here is sent to the model, nothing of the chat; its answer goes to notes");
    expect(shown?.querySelector("[data-sampled=system] pre")?.textContent).toBe("You write one-line summaries.");
    expect(shown?.querySelector("[data-sampled=user] h4")?.textContent).toBe("notes writes");
    // A character that draws nothing is shown, not hidden in the request, and the card says so.
    expect(shown?.querySelector("[data-sampled=user] pre")?.textContent).not.toBe("Summarise: rivers\u200b and lakes");
    expect(shown?.querySelector("[data-sampled=user] pre")?.textContent).toContain("Summarise: rivers");
    expect(shown?.querySelector(".hidden-chars-warning")).not.toBeNull();
    expect(shown?.querySelector("[data-sampled=assistant] h4")?.textContent).toBe("As if the model had written");
    expect(shown?.textContent).toContain("gpt-4o · Work would answer, in up to 200 tokens.");
    // The card has the keyboard, not the button: Enter sends nothing.
    const card = root.querySelector<HTMLElement>("[data-elicitation]");
    expect(document.activeElement).toBe(card);
    await act(async () => {
      card?.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
    });
    expect(answer).not.toHaveBeenCalled();
    const allow = root.querySelector<HTMLButtonElement>("[data-role=elicit-sample]");
    expect(allow?.textContent).toBe("Let the model answer");
    await act(async () => {
      allow?.click();
    });
    expect(answer).toHaveBeenCalledWith(5, "el-4", { action: "accept", content: null });
  });

  it("declines a request for the model on Escape, and offers every line of a long one", async () => {
    const long = Array.from({ length: 400 }, (_, i) => `line ${i + 1}`).join("\n");
    const sampling: PendingElicitation = {
      ...form,
      id: "el-5",
      kind: { mode: "sampling", system: null, messages: [{ role: "user", text: long }], maxTokens: 10, model: "m" },
    };
    await act(() => {
      render(<ElicitationCard elicitation={sampling} onAnswered={() => {}} />, root);
    });
    const pane = root.querySelector<HTMLPreElement>("[data-sampled=user] pre");
    expect(pane?.textContent).toContain("line 400");
    expect(pane?.classList.contains("payload-pane")).toBe(true);
    expect(root.querySelector("[data-sampled=system]")).toBeNull();
    await act(async () => {
      document.activeElement?.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true }));
    });
    expect(answer).toHaveBeenCalledWith(5, "el-5", { action: "decline" });
  });
});
