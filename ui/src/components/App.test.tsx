import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChatRow, GroupView, SettingsView } from "../types";

vi.mock("../api", () => ({
  listChats: vi.fn(),
  getChat: vi.fn(),
  waitingCounts: vi.fn(),
  listProviders: vi.fn(),
  getSettings: vi.fn(),
  onGateEvent: vi.fn(() => Promise.resolve(() => {})),
  onOpenChat: vi.fn(() => Promise.resolve(() => {})),
  listToolGroups: vi.fn(),
  createChat: vi.fn(),
}));

import * as api from "../api";
import { App, shownChat } from "./App";
import { chatRow } from "./testChats";
import { unmount } from "./testRoot";
import { commandError } from "../testing/backend";
import { NO_EFFECTS, toolSettings } from "../testing/settings";

const settings: SettingsView = {
  app: {
    theme: "system",
    language: "en",
    notify: true,
    attentionHint: true,
    mcpViews: true,
    turn: {
      maxRounds: 10,
      doomLoopThreshold: 3,
      maxParallel: 4,
      maxTokens: 4096,
      temperature: null,
      retry: { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 8000, jitter: true },
      idleTimeoutMs: 90000,
      saveIntervalMs: 250,
    },
  },
  tools: toolSettings(),
};
const groups: GroupView[] = [
  {
    name: "basic",
    title: "Basic",
    description: "Time and arithmetic",
    enabled: true,
    tools: [
      {
        name: "calculate",
        description: "Evaluates arithmetic",
        enabled: true,
        executionPolicy: "auto",
        resultPolicy: "never",
        defaultExecutionPolicy: "auto",
        defaultResultPolicy: "never",
        readOnly: true,
        timeoutMs: 5000,
        effects: NO_EFFECTS,
        defaultEffects: NO_EFFECTS,
        effectsClaimed: false,
        targets: [],
        defaultTargets: [],
      },
    ],
  },
];

let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
  sessionStorage.clear();
  vi.mocked(api.listChats).mockResolvedValue([]);
  vi.mocked(api.waitingCounts).mockResolvedValue({});
  vi.mocked(api.listProviders).mockResolvedValue([]);
  vi.mocked(api.getSettings).mockReset().mockResolvedValue(settings);
  vi.mocked(api.listToolGroups).mockResolvedValue(groups);
});
afterEach(() => unmount(root));

async function mount() {
  await act(async () => {
    render(<App />, root);
  });
  await act(async () => {});
}

async function click(el: Element | null | undefined) {
  if (!(el instanceof HTMLElement)) throw new Error("nothing to click");
  await act(async () => {
    el.click();
  });
  await act(async () => {});
}

async function openTab(label: string) {
  await click(root.querySelector("button.sidebar-settings"));
  await click([...root.querySelectorAll("[role=tab]")].find((t) => t.textContent === label));
}

describe("when the settings cannot be read", () => {
  it("the Tools tab shows why (with Retry) instead of loading forever", async () => {
    vi.mocked(api.getSettings).mockRejectedValueOnce(commandError("storage", "settings row is corrupt"));
    await mount();
    await openTab("Tools");
    const body = root.querySelector(".settings-body");
    expect(body?.querySelector('[role="status"]')).toBeNull();
    expect(body?.querySelector('[role="alert"]')?.textContent).toContain("The database failed: settings row is corrupt");

    await click(body?.querySelector('[role="alert"] button'));
    expect(api.getSettings).toHaveBeenCalledTimes(2);
    expect(body?.querySelector('[role="alert"]')).toBeNull();
    expect(body?.querySelector('tr[data-tool="calculate"]')).not.toBeNull();
  });

  it("the General tab shows why too", async () => {
    vi.mocked(api.getSettings).mockRejectedValueOnce(commandError("storage", "settings row is corrupt"));
    await mount();
    await openTab("General");
    expect(root.querySelector('.settings-body [role="alert"]')?.textContent).toContain("settings row is corrupt");
  });
});

describe("the sidebar's own failures", () => {
  it("says when the waiting counts cannot be read", async () => {
    vi.mocked(api.waitingCounts).mockRejectedValueOnce(commandError("internal", "backend gone"));
    await mount();
    expect(root.querySelector('.sidebar [role="alert"]')?.textContent).toBe("Could not read which chats wait for you: Internal error: backend gone");
  });

  it("says when a new chat cannot be created", async () => {
    vi.mocked(api.createChat).mockRejectedValueOnce(commandError("storage", "disk full"));
    await mount();
    await click(root.querySelector("button.new-chat"));
    expect(root.querySelector('.sidebar [role="alert"]')?.textContent).toBe("Could not create a chat: The database failed: disk full");
  });
});

const row = (id: number): ChatRow => chatRow(id, { updatedAt: id });

describe("which chat is on screen", () => {
  const pages = [row(9), row(8)];

  it("the picked chat from the pages read, else the newest", () => {
    expect(shownChat(pages, 8, { id: null, row: null }, null)?.id).toBe(8);
    expect(shownChat(pages, null, { id: null, row: null }, null)?.id).toBe(9);
    expect(shownChat([], null, { id: null, row: null }, null)).toBeNull();
  });

  it("an older chat on no page read: the one on screen stays while it is read, then it shows", () => {
    expect(shownChat(pages, 3, { id: null, row: null }, row(8))?.id).toBe(8);
    expect(shownChat(pages, 3, { id: 3, row: undefined }, row(8))?.id).toBe(8);
    expect(shownChat(pages, 3, { id: 3, row: row(3) }, row(8))?.id).toBe(3);
  });

  it("a picked chat that turned out deleted gives way to the newest", () => {
    expect(shownChat(pages, 3, { id: 3, row: null }, row(8))?.id).toBe(9);
    // A chat read on its own for an earlier pick is never shown for this one.
    expect(shownChat(pages, 4, { id: 3, row: row(3) }, row(8))?.id).toBe(8);
    expect(shownChat(pages, 4, { id: 3, row: row(3) }, null)).toBeNull();
  });
});

describe("the first screen", () => {
  it("shows the sidebar's chats first and opens the newest chat once that frame is painted", async () => {
    vi.mocked(api.listChats).mockResolvedValue([row(7)]);
    await mount();
    // The frame with the chats in the sidebar: the chat pane still says it is loading.
    expect(root.querySelector('.chat-list .chat-item[data-chat="7"]')).not.toBeNull();
    expect(root.querySelector("section.chat")).toBeNull();
    expect(root.querySelector('main [role="status"]')?.textContent).toContain("Loading");
    // After that frame is painted, the chat opens.
    await act(() => new Promise((r) => requestAnimationFrame(() => setTimeout(() => setTimeout(r, 0), 0))));
    expect(root.querySelector('section.chat[data-chat="7"]')).not.toBeNull();
  });
});
