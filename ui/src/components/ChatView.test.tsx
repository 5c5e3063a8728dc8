import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { framesDuring } from "../testFrames";
import type { ChatHistory, ChatRow } from "../types";

vi.mock("../api", () => ({
  chatHistory: vi.fn(),
  chatRevision: vi.fn(() => Promise.resolve({ revision: -1, running: false, waiting: 0 })),
  pendingApprovals: vi.fn(() => Promise.resolve([])),
  sendMessage: vi.fn(),
  retryTurn: vi.fn(),
  stopTurn: vi.fn(),
  listModels: vi.fn(() => Promise.resolve([])),
  chatToolGroups: vi.fn(() => Promise.resolve([])),
  openExternal: vi.fn(() => Promise.resolve()),
  copyText: vi.fn(() => Promise.resolve()),
  setChatPrompt: vi.fn(() => Promise.resolve()),
  editMessage: vi.fn(() => Promise.resolve()),
  regenerateAnswer: vi.fn(() => Promise.resolve()),
  showBranch: vi.fn(() => Promise.resolve()),
  listMcpResources: vi.fn(() => Promise.resolve([])),
  listMcpPrompts: vi.fn(() => Promise.resolve([])),
  readMcpResource: vi.fn(),
  getMcpPrompt: vi.fn(),
  onMcpChanged: vi.fn(() => Promise.resolve(() => {})),
  sandboxSupport: vi.fn(() => Promise.resolve({ landlockAbi: 7, namespaces: true, gapsNetworkOff: [], gapsNetworkOn: [] })),
  sandboxHiddenPaths: vi.fn(() => Promise.resolve(["~/.ssh", "~/.aws"])),
  setChatSandbox: vi.fn(() => Promise.resolve()),
}));

import * as api from "../api";
import * as session from "../session";
import { chatStore } from "../store";
import { ChatView } from "./ChatView";
import { HISTORY_FIRST_PAGE } from "../bindings";
import { chatRow } from "./testChats";
import { finishedCall, pendingApproval } from "./testCalls";
import { unmount } from "./testRoot";
import { offerFiles, offerMessage } from "../drafts";
import { commandError } from "../testing/backend";

const chat: ChatRow = chatRow(21, { title: "Notes" });
const history: ChatHistory = { messages: [], calls: [], running: false, revision: 0, earlier: null, task: null };

let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
  vi.mocked(api.chatHistory).mockReset().mockResolvedValue(history);
  vi.mocked(api.sendMessage).mockReset();
  vi.mocked(api.stopTurn).mockReset();
  vi.mocked(api.retryTurn).mockReset();
});
afterEach(async () => {
  await unmount(root);
  chatStore.delete(chat.id);
});

const openProviders = vi.fn();
const carryOver = vi.fn();

async function mount() {
  await act(async () => {
    render(
      <ChatView
        chat={chat}
        providers={[]}
        providersError={null}
        showLog={false}
        onToggleLog={() => {}}
        showDemoInvite={false}
        onDismissInvite={() => {}}
        onOpenProviders={openProviders}
        onChatChanged={() => {}}
        onCarryOver={carryOver}
      />,
      root,
    );
  });
  // Let the chat's history load.
  await act(async () => {});
}

/** A finished message of the timeline, with `extra` fields over the defaults. */
const message = (id: number, role: "user" | "assistant", content: string, extra: object = {}) => ({
  id,
  role,
  content,
  reasoning: "",
  retry: null,
  status: "complete" as const,
  toolCalls: [],
  usage: null,
  createdAt: 0,
  ...extra,
});

describe("a chat of some length", () => {
  it("renders the messages near the view, not all of them with their markdown", async () => {
    const messages = Array.from({ length: 100 }, (_, i) =>
      i % 2 ? message(i + 1, "assistant", `Answer **${i + 1}**`) : message(i + 1, "user", `Question ${i + 1}`),
    );
    await mount();
    await act(async () => chatStore.update(chat.id, (s) => ({ ...s, messages })));
    const shown = Array.from(root.querySelectorAll<HTMLElement>("[data-message]")).map((m) => Number(m.dataset["message"]));
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(40);
    // Those rendered are consecutive (jsdom scrolls nowhere, so they are the first ones).
    expect(shown).toEqual(Array.from({ length: shown.length }, (_, i) => (shown[0] ?? 0) + i));
  });
});

function alertBanner(): HTMLElement | null {
  return root.querySelector<HTMLElement>('.composer-wrap [data-role="chat-alert"]');
}

async function type(text: string) {
  const area = root.querySelector<HTMLTextAreaElement>("#composer");
  if (!area) throw new Error("no composer");
  await act(async () => {
    area.value = text;
    area.dispatchEvent(new Event("input", { bubbles: true }));
  });
  return area;
}

async function click(button: HTMLElement | null | undefined) {
  if (!button) throw new Error("no button");
  await act(async () => {
    button.click();
  });
}

describe("the composer's undo history", () => {
  it("is dropped when a message is sent", async () => {
    vi.mocked(api.sendMessage).mockResolvedValue(undefined);
    await mount();
    await type("hello there");
    const button = root.querySelector<HTMLButtonElement>(".composer button.btn--primary");
    let frames = { added: 0, removed: 0 };
    await act(async () => {
      frames = framesDuring(() => button?.click());
    });
    expect(frames).toEqual({ added: 1, removed: 1 });
  });
});

describe("a failed chat action shows above the composer", () => {
  it("a failed send says why, puts the text back, and can be dismissed", async () => {
    vi.mocked(api.sendMessage).mockRejectedValue(commandError("busy", "A turn is already running in this chat."));
    await mount();
    const area = await type("hello there");
    await click(root.querySelector<HTMLButtonElement>(".composer button.btn--primary"));

    const banner = alertBanner();
    expect(banner?.getAttribute("role")).toBe("alert");
    expect(banner?.textContent).toContain("Could not send the message: A reply is already being written in this chat; wait for it or press Stop.");
    expect(area.value).toBe("hello there");

    await click(banner?.querySelector<HTMLButtonElement>('button[aria-label="Dismiss"]'));
    expect(alertBanner()).toBeNull();
  });

  it("a failed send from a suggestion shows the same banner", async () => {
    vi.mocked(api.sendMessage).mockRejectedValue(commandError("invalid", "no provider"));
    await mount();
    await click(root.querySelector<HTMLButtonElement>(".suggestion"));
    expect(alertBanner()?.textContent).toContain("Could not send the message: Not accepted: no provider");
  });

  it("a failed Stop says the turn could not be stopped", async () => {
    vi.mocked(api.stopTurn).mockRejectedValue(commandError("internal", "backend gone"));
    await mount();
    await act(async () => chatStore.update(chat.id, (s) => ({ ...s, running: true })));
    await click(root.querySelector<HTMLButtonElement>(".composer-wrap button.btn--danger"));
    expect(alertBanner()?.textContent).toContain("Could not stop the turn: Internal error: backend gone");
  });

  it("a refused key says so in the user's words and opens the provider's settings, from the keyboard too", async () => {
    openProviders.mockClear();
    await mount();
    await act(async () =>
      chatStore.update(chat.id, (s) => ({ ...s, error: { message: "the provider answered 401: invalid api key", retryable: false, kind: "auth" } })),
    );
    const notice = root.querySelector<HTMLElement>('.timeline [data-failure="auth"]');
    expect(notice?.querySelector("strong")?.textContent).toBe("The provider refused the key");
    expect(notice?.textContent).toContain("Check the provider's key in Settings → Providers");
    expect(notice?.textContent).toContain("invalid api key");
    // The way to fix it first, then Retry (which fails again until the key is fixed).
    expect([...(notice?.querySelectorAll("button") ?? [])].map((b) => b.textContent)).toEqual(["Check the provider's key", "↻ Retry"]);
    const button = notice?.querySelector<HTMLButtonElement>('[data-role="failure-providers"]');
    button?.focus();
    await act(async () => {
      button?.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
      button?.click(); // what Enter on a focused button does
    });
    expect(openProviders).toHaveBeenCalledTimes(1);
  });

  it("a conversation too long for the model offers a new chat from a summary of it", async () => {
    carryOver.mockClear();
    await mount();
    await act(async () =>
      chatStore.update(chat.id, (s) => ({
        ...s,
        messages: [
          message(1, "user", "Plan a trip to Kyoto in April"),
          message(2, "assistant", "Day one: Fushimi Inari at dawn."),
          message(3, "user", "And day two?"),
        ],
        error: { message: "This model's maximum context length is 8192 tokens", retryable: false, kind: "contextTooLong" },
      })),
    );
    const notice = root.querySelector<HTMLElement>('.timeline [data-failure="contextTooLong"]');
    expect(notice?.querySelector("strong")?.textContent).toBe("The conversation is longer than the model can read");
    expect(notice?.textContent).toContain("edit one of your earlier messages");
    await click(notice?.querySelector<HTMLButtonElement>('[data-role="failure-carry-over"]'));
    expect(carryOver).toHaveBeenCalledTimes(1);
    const text = carryOver.mock.calls[0]?.[0] as string;
    expect(text).toContain("User: Plan a trip to Kyoto in April");
    expect(text).toContain("Assistant: Day one: Fushimi Inari at dawn.");
    expect(text).toContain("User: And day two?");
    // Nothing is sent: the text waits in the new chat's composer for the user.
    expect(api.sendMessage).not.toHaveBeenCalled();
  });

  it("a failed Retry keeps the turn's error with Retry and says why", async () => {
    vi.mocked(api.retryTurn).mockRejectedValue(commandError("invalid", "no provider"));
    await mount();
    await act(async () => chatStore.update(chat.id, (s) => ({ ...s, error: { message: "rate limited", retryable: true, kind: "rateLimited" } })));
    await click([...root.querySelectorAll<HTMLButtonElement>(".notice--error button")].find((b) => b.textContent?.includes("Retry")));
    expect(root.querySelector(".timeline .notice--error")?.textContent).toContain("rate limited");
    expect(alertBanner()?.textContent).toContain("Could not retry the turn: Not accepted: no provider");
  });

  it("a failed background refresh shows in the chat", async () => {
    await mount();
    vi.mocked(api.chatHistory).mockRejectedValue(commandError("storage", "database locked"));
    await act(async () => session.refresh(chat.id));
    expect(alertBanner()?.textContent).toContain("Could not refresh this chat: The database failed: database locked");
  });

  it("a chat that cannot be opened says so instead of loading forever", async () => {
    vi.mocked(api.chatHistory).mockRejectedValue(commandError("notFound", "no such chat"));
    await mount();
    expect(root.querySelector('.timeline [role="alert"]')?.textContent).toBe("Could not open this chat: It does not exist any more: no such chat");
    expect(root.querySelector('.timeline [role="status"]')).toBeNull();
  });
});

describe("thinking and retries in an answer", () => {
  const streaming = (patch: Partial<import("../timeline").TimelineMessage>) =>
    act(async () =>
      chatStore.update(chat.id, (s) => ({
        ...s,
        running: true,
        messages: [
          { id: 1, role: "user", content: "2+2?", reasoning: "", retry: null, status: "complete", toolCalls: [], usage: null, createdAt: 0 },
          {
            id: 2,
            role: "assistant",
            content: "",
            reasoning: "",
            retry: null,
            status: "streaming",
            toolCalls: [],
            usage: null,
            createdAt: 0,
            ...patch,
          },
        ],
      })),
    );

  it("shows the reasoning open while the model thinks and folds it once the answer starts", async () => {
    await mount();
    await streaming({ reasoning: "Two plus two is four." });
    let thinking = root.querySelector<HTMLDetailsElement>('[data-role="thinking"]');
    expect(thinking?.open).toBe(true);
    expect(thinking?.querySelector("summary")?.textContent).toBe("Thinking…");
    expect(thinking?.textContent).toContain("Two plus two is four.");
    await streaming({ reasoning: "Two plus two is four.", content: "Four." });
    thinking = root.querySelector<HTMLDetailsElement>('[data-role="thinking"]');
    expect(thinking?.open).toBe(false);
    expect(thinking?.querySelector("summary")?.textContent).toBe("Thinking");
    // The answer is not inside the thinking section, and the reasoning is not in the answer.
    const answer = [...root.querySelectorAll<HTMLElement>('[data-message="2"] > .markdown')];
    expect(answer.map((a) => a.textContent?.trim())).toEqual(["Four."]);
  });

  it("draws a call's approval once, under its call, also in a short chat drawn through the list", async () => {
    await mount();
    const asking = { ...finishedCall("{}", { tool: "edit_file" }), seq: 3, messageId: 2, status: "awaiting_approval" as const };
    const viewCall = { ...asking, seq: 4, viewOf: 3 };
    const approval = (seq: number) => pendingApproval(chat.id, seq, "edit_file", "files");
    await streaming({ content: "Editing." });
    await act(async () =>
      chatStore.update(chat.id, (s) => ({ ...s, calls: [asking, viewCall], approvals: [approval(3), approval(4), approval(9)] })),
    );
    const cards = [...root.querySelectorAll<HTMLElement>(".approval-card")];
    // One for the call, one for the call its view made, and one for a call drawn nowhere (at the end).
    expect(cards).toHaveLength(3);
    expect(cards.filter((c) => c.closest('[data-message="2"]'))).toHaveLength(2);
    expect(cards[0]?.closest('[data-role="view-call"]')).toBeNull();
    expect(cards[1]?.closest('[data-role="view-call"]')).not.toBeNull();
    expect(cards[2]?.closest("[data-message]")).toBeNull();
  });

  it("stands the retry notice in for a broken attempt's text", async () => {
    await mount();
    await streaming({ retry: { attempt: 2, maxRetries: 4, error: "the connection was lost" } });
    const notice = root.querySelector<HTMLElement>('[data-role="retry-notice"]');
    expect(notice?.getAttribute("role")).toBe("status");
    expect(notice?.textContent).toContain("Connection lost — retrying (2/4)…");
    expect(notice?.textContent).toContain("the connection was lost");
    expect(root.querySelector('[data-message="2"] .typing')).toBeNull();
    expect(root.querySelector('[data-role="retrying"]')).toBeNull();
  });
});

describe("links in answers", () => {
  const answer = (content: string) =>
    act(async () =>
      chatStore.update(chat.id, (s) => ({
        ...s,
        messages: [{ id: 5, role: "assistant", content, reasoning: "", retry: null, status: "complete", toolCalls: [], usage: null, createdAt: 0 }],
      })),
    );
  const link = () => {
    const a = root.querySelector<HTMLAnchorElement>('[data-message="5"] .markdown a');
    if (!a) throw new Error("no link");
    return a;
  };
  const dialog = () => root.querySelector<HTMLElement>('[data-role="link-dialog"]');
  beforeEach(() => vi.mocked(api.openExternal).mockClear());

  it("opens a link whose text is its address in the browser, never in the window", async () => {
    await mount();
    await answer("See [docs.rs/tokio](https://docs.rs/tokio) for more.");
    const click = new MouseEvent("click", { bubbles: true, cancelable: true });
    await act(async () => {
      link().dispatchEvent(click);
    });
    expect(click.defaultPrevented).toBe(true);
    expect(api.openExternal).toHaveBeenCalledWith("https://docs.rs/tokio");
    expect(dialog()).toBeNull();
  });

  it("shows the full target first when the text reads otherwise, and Escape opens nothing", async () => {
    await mount();
    await answer("The [official docs.rs page](https://docs.rs.evil.example/login?next=%2F) has it.");
    await click(link());
    expect(api.openExternal).not.toHaveBeenCalled();
    expect(dialog()?.querySelector(".link-target")?.textContent).toBe("https://docs.rs.evil.example/login?next=%2F");
    expect(document.activeElement?.textContent).toBe("Cancel");
    await act(async () => {
      window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));
    });
    expect(dialog()).toBeNull();
    expect(api.openExternal).not.toHaveBeenCalled();
    await click(link());
    await click(dialog()?.querySelector<HTMLButtonElement>('[data-role="open-link"]'));
    expect(api.openExternal).toHaveBeenCalledWith("https://docs.rs.evil.example/login?next=%2F");
    expect(dialog()).toBeNull();
  });

  it("says why a link could not be opened", async () => {
    vi.mocked(api.openExternal).mockRejectedValueOnce(commandError("internal", "no browser"));
    await mount();
    await answer("[example.com](https://example.com/)");
    await click(link());
    expect(root.querySelector('[data-message="5"] .inline-error')?.textContent).toBe("The link could not be opened: Internal error: no browser");
  });

  it("offers no way to open a link that is not a web or mail link", async () => {
    await mount();
    await answer("[passwords](file:///etc/passwd)");
    await click(link());
    expect(dialog()?.textContent).toContain("only web and mail links");
    expect(dialog()?.querySelector('[data-role="open-link"]')).toBeNull();
    expect(api.openExternal).not.toHaveBeenCalled();
  });
});

describe("copy", () => {
  beforeEach(() => vi.mocked(api.copyText).mockClear());

  it("copies a code block's code and a message's markdown, and says so", async () => {
    await mount();
    const source = "Run this:\n\n```sh\necho 'hi' > out.txt\n```\n\nThen **check**.";
    await act(async () =>
      chatStore.update(chat.id, (s) => ({
        ...s,
        messages: [
          { id: 1, role: "user", content: "how?", reasoning: "", retry: null, status: "complete", toolCalls: [], usage: null, createdAt: 0 },
          { id: 2, role: "assistant", content: source, reasoning: "", retry: null, status: "complete", toolCalls: [], usage: null, createdAt: 0 },
        ],
      })),
    );
    const codeButton = root.querySelector<HTMLButtonElement>('[data-message="2"] pre [data-role="copy-code"]');
    expect(codeButton?.getAttribute("aria-label")).toBe("Copy this code");
    await click(codeButton);
    expect(api.copyText).toHaveBeenLastCalledWith("echo 'hi' > out.txt");
    expect(codeButton?.textContent).toBe("Copied");
    await click(root.querySelector<HTMLButtonElement>('[data-message="2"] [data-role="copy-message"]'));
    expect(api.copyText).toHaveBeenLastCalledWith(source);
    expect(root.querySelector('[data-message="2"] [data-role="copy-message"]')?.textContent).toContain("Copied");
    await click(root.querySelector<HTMLButtonElement>('.msg--user [data-role="copy-message"]'));
    expect(api.copyText).toHaveBeenLastCalledWith("how?");
  });

  it("says when the clipboard refused", async () => {
    vi.mocked(api.copyText).mockRejectedValueOnce(commandError("internal", "no clipboard"));
    await mount();
    await act(async () =>
      chatStore.update(chat.id, (s) => ({
        ...s,
        messages: [
          { id: 2, role: "assistant", content: "text", reasoning: "", retry: null, status: "complete", toolCalls: [], usage: null, createdAt: 0 },
        ],
      })),
    );
    await click(root.querySelector<HTMLButtonElement>('[data-message="2"] [data-role="copy-message"]'));
    expect(root.querySelector('[data-message="2"] [data-role="copy-message"]')?.textContent).toContain("Not copied");
  });
});

describe("the chat's prompt and parameters", () => {
  async function field(role: string, value: string) {
    const el = root.querySelector<HTMLInputElement | HTMLTextAreaElement>(`[data-role="${role}"]`);
    if (!el) throw new Error(`no ${role}`);
    await act(async () => {
      el.value = value;
      el.dispatchEvent(new Event("input", { bubbles: true }));
    });
  }
  async function submit() {
    const form = root.querySelector<HTMLFormElement>('[data-role="chat-prompt-form"]');
    if (!form) throw new Error("no prompt form");
    await act(async () => {
      form.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
    });
  }

  it("saves the prompt, temperature and longest answer, and refuses values out of range", async () => {
    await mount();
    await click(root.querySelector<HTMLButtonElement>('[data-role="chat-prompt"]'));
    await field("system-prompt", "Be brief.");
    await field("temperature", "3");
    await submit();
    expect(api.setChatPrompt).not.toHaveBeenCalled();
    expect(root.querySelector('[data-role="chat-prompt-form"] .inline-error')?.textContent).toContain("from 0 to 2");
    await field("temperature", "0.4");
    await field("max-tokens", "12.5");
    await submit();
    expect(api.setChatPrompt).not.toHaveBeenCalled();
    await field("max-tokens", "500");
    await submit();
    expect(api.setChatPrompt).toHaveBeenCalledWith(21, "Be brief.", { temperature: 0.4, maxTokens: 500 });
    await act(async () => {});
    expect(root.querySelector('[data-role="chat-prompt-form"]')).toBeNull();
  });

  it("blank fields go back to the defaults", async () => {
    vi.mocked(api.setChatPrompt).mockClear();
    await mount();
    await click(root.querySelector<HTMLButtonElement>('[data-role="chat-prompt"]'));
    await submit();
    expect(api.setChatPrompt).toHaveBeenCalledWith(21, "", {});
  });
});

describe("edit, regenerate and versions (F-56)", () => {
  const providers = [
    {
      id: 3,
      kind: "openai" as const,
      name: "Mock",
      baseUrl: "http://x/v1",
      defaultModel: "big",
      hasKey: true,
      toolCalling: "native" as const,
      options: { requestStyle: "auto" as const },
      createdAt: 0,
    },
  ];
  async function show(messages: ReturnType<typeof message>[]) {
    await act(async () => {
      render(
        <ChatView
          chat={chat}
          providers={providers}
          providersError={null}
          showLog={false}
          onToggleLog={() => {}}
          showDemoInvite={false}
          onDismissInvite={() => {}}
          onOpenProviders={() => {}}
          onChatChanged={() => {}}
          onCarryOver={() => {}}
        />,
        root,
      );
    });
    // Let the chat's history load before the messages are put in its place.
    await vi.waitFor(() => expect(api.chatHistory).toHaveBeenCalled());
    await act(async () => {});
    await act(async () => chatStore.update(chat.id, (s) => ({ ...s, messages })));
  }
  function key(el: Element | null, k: string, shiftKey = false) {
    el?.dispatchEvent(new KeyboardEvent("keydown", { key: k, shiftKey, bubbles: true, cancelable: true }));
  }
  beforeEach(() => {
    vi.mocked(api.editMessage).mockReset().mockResolvedValue(undefined);
    vi.mocked(api.regenerateAnswer).mockReset().mockResolvedValue(undefined);
    vi.mocked(api.showBranch).mockReset().mockResolvedValue(undefined);
  });

  it("edits a message from the keyboard: Escape keeps it, Enter sends the new version", async () => {
    await show([message(1, "user", "first"), message(2, "assistant", "answer"), message(3, "user", "second"), message(4, "assistant", "later")]);
    await click(root.querySelector<HTMLButtonElement>('[data-message="3"] [data-role="edit-message"]'));
    let area = root.querySelector<HTMLTextAreaElement>('[data-role="edit-form"] textarea');
    expect(document.activeElement).toBe(area);
    expect(area?.value).toBe("second");
    await act(async () => key(area, "Escape"));
    expect(root.querySelector('[data-role="edit-form"]')).toBeNull();
    expect(api.editMessage).not.toHaveBeenCalled();

    await click(root.querySelector<HTMLButtonElement>('[data-message="3"] [data-role="edit-message"]'));
    area = root.querySelector<HTMLTextAreaElement>('[data-role="edit-form"] textarea');
    await act(async () => {
      if (!area) return;
      area.value = "second, better";
      area.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await act(async () => key(area, "Enter"));
    expect(api.editMessage).toHaveBeenCalledWith(21, 3, "second, better", expect.any(Function));
    // The view shows the new branch at once: what came before, then the new version.
    const s = chatStore.get(chat.id);
    expect(s.messages.map((m) => m.content)).toEqual(["first", "answer", "second, better"]);
    expect(s.running).toBe(true);
  });

  it("an edit that cannot be sent opens again with its text, and the alert says why", async () => {
    vi.mocked(api.editMessage).mockRejectedValueOnce(commandError("invalid", "no provider"));
    await show([message(1, "user", "first"), message(2, "assistant", "answer")]);
    await click(root.querySelector<HTMLButtonElement>('[data-message="1"] [data-role="edit-message"]'));
    const area = root.querySelector<HTMLTextAreaElement>('[data-role="edit-form"] textarea');
    await act(async () => {
      if (!area) return;
      area.value = "first, edited";
      area.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await act(async () => key(area, "Enter"));
    await act(async () => {});
    expect(chatStore.get(chat.id).messages.map((m) => m.content)).toEqual(["first", "answer"]);
    expect(root.querySelector<HTMLTextAreaElement>('[data-role="edit-form"] textarea')?.value).toBe("first, edited");
    expect(alertBanner()?.textContent).toContain("no provider");
    // Escape drops the draft for good.
    await act(async () => key(root.querySelector('[data-role="edit-form"] textarea'), "Escape"));
    expect(root.querySelector('[data-role="edit-form"]')).toBeNull();
  });

  it("switches versions with ‹ › and regenerates the last answer of a turn", async () => {
    await show([
      message(1, "user", "q", { siblings: [1, 5] }),
      message(2, "assistant", "calling", { siblings: [2, 7, 9] }),
      message(3, "assistant", "done", { model: "big" }),
    ]);
    const versions = root.querySelector('[data-message="2"] [data-role="versions"]');
    expect(versions?.textContent).toContain("1/3");
    expect(versions?.getAttribute("aria-label")).toBe("Version 1 of 3");
    expect(root.querySelector<HTMLButtonElement>('[data-message="2"] [data-role="version-previous"]')?.disabled).toBe(true);
    expect(root.querySelector('[data-message="1"] [data-role="versions"]')?.textContent).toContain("1/2");
    // Only the turn's last answer offers Regenerate; it names the model that wrote it.
    expect(root.querySelector('[data-message="2"] [data-role="regenerate"]')).toBeNull();
    expect(root.querySelector('[data-message="3"] .msg-model')?.textContent).toBe("big");
    await click(root.querySelector<HTMLButtonElement>('[data-message="3"] [data-role="regenerate"]'));
    expect(api.regenerateAnswer).toHaveBeenCalledWith(21, 3, null, expect.any(Function));
    expect(chatStore.get(chat.id).messages.map((m) => m.id)).toEqual([1]);

    // The next version: the backend shows that branch and the chat is read again.
    await act(async () =>
      chatStore.update(chat.id, (s) => ({
        ...s,
        running: false,
        messages: [message(1, "user", "q"), message(2, "assistant", "a", { siblings: [2, 7] })],
      })),
    );
    await click(root.querySelector<HTMLButtonElement>('[data-message="2"] [data-role="version-next"]'));
    expect(api.showBranch).toHaveBeenCalledWith(21, 7);
    expect(api.chatHistory).toHaveBeenLastCalledWith(21, null, HISTORY_FIRST_PAGE);
  });

  it("regenerates with another model chosen in the ▾ menu", async () => {
    await show([message(1, "user", "q"), message(2, "assistant", "a")]);
    await click(root.querySelector<HTMLButtonElement>('[data-message="2"] [data-role="regenerate-with"]'));
    const input = root.querySelector<HTMLInputElement>('[data-message="2"] .popover input');
    await act(async () => {
      if (!input) return;
      input.value = "small";
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await click(root.querySelector<HTMLButtonElement>('[data-role="regenerate-go"]'));
    expect(api.regenerateAnswer).toHaveBeenCalledWith(21, 2, { provider: 3, model: "small" }, expect.any(Function));
  });
});

describe("attachments in the composer (F-57)", () => {
  /** Picks `files`; returns once every one of them was read (shown as a chip, or refused). */
  async function pick(files: File[]) {
    const input = root.querySelector<HTMLInputElement>('[data-role="attach-input"]');
    if (!input) throw new Error("no file input");
    Object.defineProperty(input, "files", { value: files, configurable: true });
    await act(async () => {
      input.dispatchEvent(new Event("change", { bubbles: true }));
    });
    // FileReader finishes on a later turn of the event loop, later still on a busy machine.
    await vi.waitFor(
      async () => {
        await act(() => new Promise((resolve) => setTimeout(resolve, 10)));
        const chips = root.querySelectorAll('.composer [data-role="attachments"] li').length;
        const refused = root.querySelector('[data-role="attach-error"]') ? 1 : 0;
        if (chips + refused === 0) throw new Error("the files are still being read");
      },
      { timeout: 5_000, interval: 20 },
    );
  }

  it("keeps every file of two quick picks, and the error of the later one", async () => {
    await mount();
    const input = root.querySelector<HTMLInputElement>('[data-role="attach-input"]');
    if (!input) throw new Error("no file input");
    const choose = (files: File[]) => {
      Object.defineProperty(input, "files", { value: files, configurable: true });
      input.dispatchEvent(new Event("change", { bubbles: true }));
    };
    // The second pick comes while the first is still being read.
    await act(async () => {
      choose([new File(["a".repeat(200_000)], "big.md")]);
      choose([new File(["- milk"], "notes.md"), new File(["MZ"], "app.exe", { type: "application/x-msdownload" })]);
    });
    await vi.waitFor(
      async () => {
        await act(() => new Promise((resolve) => setTimeout(resolve, 10)));
        if (root.querySelectorAll('.composer [data-role="attachments"] li').length < 2) throw new Error("still reading");
      },
      { timeout: 5_000, interval: 20 },
    );
    const chips = [...root.querySelectorAll('.composer [data-role="attachments"] li')];
    expect(chips.map((c) => c.getAttribute("title"))).toEqual(["big.md", "notes.md"]);
    expect(root.querySelector('[data-role="attach-error"]')?.textContent).toContain('"app.exe" is not an image');
    expect(input.value).toBe("");
  });

  it("shows picked files, sends them with the message, and keeps them when sending fails", async () => {
    vi.mocked(api.sendMessage).mockRejectedValueOnce(commandError("provider", "offline")).mockResolvedValueOnce(undefined);
    await mount();
    const png = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])], "dot.png", { type: "image/png" });
    await pick([png, new File(["- milk"], "notes.md"), new File(["MZ"], "app.exe", { type: "application/x-msdownload" })]);
    const chips = [...root.querySelectorAll('.composer [data-role="attachments"] li')];
    expect(chips.map((c) => c.getAttribute("title"))).toEqual(["dot.png", "notes.md"]);
    expect(root.querySelector(".composer img")?.getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    expect(root.querySelector('[data-role="attach-error"]')?.textContent).toContain('"app.exe" is not an image');

    // Files alone can be sent; a failed send gives them back.
    const send = root.querySelector<HTMLButtonElement>(".composer button.btn--primary");
    expect(send?.disabled).toBe(false);
    await click(send);
    await act(async () => {});
    expect(api.sendMessage).toHaveBeenCalledWith(
      21,
      "",
      [expect.objectContaining({ name: "dot.png", kind: "image" }), expect.objectContaining({ name: "notes.md", kind: "text", data: "- milk" })],
      expect.any(Function),
      [],
    );
    expect(root.querySelectorAll('.composer [data-role="attachments"] li')).toHaveLength(2);

    // A chip can be removed before sending.
    await click(root.querySelector<HTMLButtonElement>('.composer [aria-label="Remove notes.md"]'));
    await click(root.querySelector<HTMLButtonElement>(".composer button.btn--primary"));
    expect(vi.mocked(api.sendMessage).mock.calls[1]?.[2]).toHaveLength(1);
    expect(root.querySelector('.composer [data-role="attachments"]')).toBeNull();
    // The pending message shows its image.
    expect(root.querySelector('.msg--user [data-role="attachments"] img')).not.toBeNull();
  });
});

describe("MCP prompts and resources in the composer (F-45)", () => {
  const review = {
    server: "probe",
    name: "review",
    title: "Review a file",
    description: "Asks for a review",
    arguments: [
      { name: "file", description: "The file", required: true },
      { name: "focus", description: null, required: false },
    ],
  };
  const hello = { server: "probe", name: "hello", title: null, description: "Says hello", arguments: [] };
  const notes = { server: "probe", uri: "probe://notes.md", name: "notes", title: "Project notes", description: null, mimeType: "text/markdown" };
  function key(k: string) {
    const area = root.querySelector<HTMLTextAreaElement>("#composer");
    area?.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true }));
  }
  beforeEach(() => {
    vi.mocked(api.listMcpPrompts).mockResolvedValue([review, hello]);
    vi.mocked(api.listMcpResources).mockResolvedValue([notes]);
    vi.mocked(api.getMcpPrompt)
      .mockReset()
      .mockResolvedValue({
        text: "Review main.rs carefully.",
        attachments: [{ name: "notes.md", kind: "text", mediaType: "text/markdown", data: "# Notes" }],
        sources: [{ type: "mcpPrompt", server: "probe", name: "review" }],
      });
    vi.mocked(api.readMcpResource)
      .mockReset()
      .mockResolvedValue([{ name: "Project notes", kind: "text", mediaType: "text/markdown", data: "# Notes" }]);
  });

  it("lists prompts under /, picks one from the keyboard, asks its arguments and fills the composer", async () => {
    await mount();
    await type("/");
    const items = [...root.querySelectorAll('[data-role="prompt-menu"] [role="option"]')];
    expect(items.map((i) => i.getAttribute("data-prompt"))).toEqual(["review", "hello"]);
    await type("/he");
    expect([...root.querySelectorAll('[data-role="prompt-menu"] [role="option"]')].map((i) => i.getAttribute("data-prompt"))).toEqual(["hello"]);
    await type("/");
    await act(async () => key("ArrowDown"));
    await act(async () => key("ArrowUp"));
    expect(root.querySelector('[role="option"][aria-selected="true"]')?.getAttribute("data-prompt")).toBe("review");
    await act(async () => key("Enter"));
    // The arguments form: the required one must be given before the prompt can be used.
    const form = root.querySelector('[data-role="prompt-form"]');
    expect(form).not.toBeNull();
    const use = form?.querySelector<HTMLButtonElement>('button[type="submit"]');
    expect(use?.disabled).toBe(true);
    const file = form?.querySelector<HTMLInputElement>('[data-arg="file"]');
    expect(document.activeElement).toBe(file);
    await act(async () => {
      if (!file) return;
      file.value = "main.rs";
      file.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await act(async () => {
      form?.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
    });
    await act(async () => {});
    expect(api.getMcpPrompt).toHaveBeenCalledWith("probe", "review", { file: "main.rs" });
    expect(root.querySelector<HTMLTextAreaElement>("#composer")?.value).toBe("Review main.rs carefully.");
    expect(root.querySelector('.composer [data-role="attachments"] li')?.getAttribute("title")).toBe("notes.md");
    expect(api.sendMessage).not.toHaveBeenCalled();
    // Sent, the message says where its text came from (the gate counts it as the server's).
    await click(root.querySelector<HTMLButtonElement>(".composer button.btn--primary"));
    await act(async () => {});
    expect(vi.mocked(api.sendMessage).mock.calls[0]?.[4]).toEqual([{ type: "mcpPrompt", server: "probe", name: "review" }]);
  });

  it("Escape closes the prompt list and leaves the text", async () => {
    await mount();
    await type("/re");
    expect(root.querySelector('[data-role="prompt-menu"]')).not.toBeNull();
    await act(async () => key("Escape"));
    expect(root.querySelector('[data-role="prompt-menu"]')).toBeNull();
    expect(root.querySelector<HTMLTextAreaElement>("#composer")?.value).toBe("/re");
  });

  it("a view's message joins what the user wrote, labelled with the view, and its newer context replaces the older", async () => {
    await mount();
    await type("My own words.");
    await act(async () => offerMessage(chat.id, { text: "Book the 9:40 train.", sources: [{ type: "mcpView", server: "trains" }] }));
    expect(root.querySelector<HTMLTextAreaElement>("#composer")?.value).toBe("My own words.\n\nBook the 9:40 train.");
    expect(root.querySelector('[data-role="composer-from"]')?.textContent).toContain("the view of the MCP server trains");
    const context = (data: string) => ({
      name: "Context from the view of trains.txt",
      kind: "text" as const,
      mediaType: "text/plain",
      data,
      source: { type: "mcpView" as const, server: "trains" },
    });
    await act(async () => offerFiles(chat.id, [context("Seats: 2")]));
    await act(async () => offerFiles(chat.id, [context("Seats: 3")]));
    const attached = [...root.querySelectorAll('.composer [data-role="attachments"] li')];
    expect(attached.map((li) => li.getAttribute("title"))).toEqual(["Context from the view of trains.txt"]);
    expect(api.sendMessage).not.toHaveBeenCalled();
    await click(root.querySelector<HTMLButtonElement>(".composer button.btn--primary"));
    await act(async () => {});
    const sent = vi.mocked(api.sendMessage).mock.calls[0];
    expect(sent?.[2]).toEqual([context("Seats: 3")]);
    expect(sent?.[4]).toEqual([{ type: "mcpView", server: "trains" }]);
  });

  it("attaches a resource picked from the list", async () => {
    await mount();
    await click(root.querySelector<HTMLButtonElement>('[data-role="attach-resource"]'));
    await click(root.querySelector<HTMLButtonElement>('[data-uri="probe://notes.md"]'));
    await act(async () => {});
    expect(api.readMcpResource).toHaveBeenCalledWith("probe", "probe://notes.md");
    expect(root.querySelector('.composer [data-role="attachments"] li')?.getAttribute("title")).toBe("Project notes");
  });
});
