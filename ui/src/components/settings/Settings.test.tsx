import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ApprovalRecordRow, GroupView, ProviderConfig, SettingsView } from "../../types";

vi.mock("../../api", () => ({
  listToolGroups: vi.fn(),
  listProviders: vi.fn(),
  addProvider: vi.fn(),
  saveProviderKey: vi.fn(() => Promise.resolve()),
  listRules: vi.fn(() => Promise.resolve([])),
  listRecords: vi.fn(),
}));

import * as api from "../../api";
import { type SettingsTab, SettingsScreen } from "./Settings";

const providers: ProviderConfig[] = [
  { id: 1, kind: "openai", name: "Local llama", baseUrl: "http://127.0.0.1:8080/v1", defaultModel: "llama", hasKey: false, toolCalling: "text", createdAt: 0 },
  { id: 2, kind: "anthropic", name: "Claude", baseUrl: "https://api.anthropic.com", defaultModel: "claude", hasKey: true, toolCalling: "native", createdAt: 0 },
];

const records: ApprovalRecordRow[] = [
  { chat: 3, tool: "read_file", argsHash: "h1", args: '{"path":"a.txt"}', workspace: "/home/me/project", allowed: true, createdAt: 0 },
  { chat: 3, tool: "current_time", argsHash: "h2", args: "{}", workspace: null, allowed: false, createdAt: 0 },
];

let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
  vi.mocked(api.listProviders).mockResolvedValue(providers);
  vi.mocked(api.addProvider).mockReset();
  vi.mocked(api.addProvider).mockResolvedValue({ ...providers[0]!, id: 9 });
  vi.mocked(api.listRecords).mockResolvedValue(records);
});
afterEach(() => render(null, root));

async function show(tab: SettingsTab, settings: { settings: SettingsView | null; settingsError: string | null } = { settings: null, settingsError: null }) {
  await act(async () => {
    render(
      <SettingsScreen
        tab={tab}
        onTab={() => {}}
        settings={settings.settings}
        settingsError={settings.settingsError}
        onReloadSettings={() => {}}
        onSettings={() => {}}
        chats={[]}
        currentChat={3}
        onProvidersChanged={() => {}}
        onConfirm={() => {}}
        onBack={() => {}}
      />,
      root,
    );
  });
  await act(async () => {});
}

async function input(el: HTMLInputElement | HTMLSelectElement, value: string, event = "input") {
  await act(async () => {
    el.value = value;
    el.dispatchEvent(new Event(event, { bubbles: true }));
  });
}

async function addProvider() {
  const form = root.querySelector<HTMLFormElement>(".add-provider");
  const name = form?.querySelectorAll<HTMLInputElement>("input")[0];
  if (!form || !name) throw new Error("no provider form");
  await input(name, "Mine");
  await act(async () => {
    form.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
  });
}

describe("provider tool calling", () => {
  it("offers native (the default) and text, and sends the choice", async () => {
    await show("providers");
    const select = root.querySelector<HTMLSelectElement>('[data-role="tool-calling"]');
    if (!select) throw new Error("no tool-calling select");
    expect(select.value).toBe("native");
    expect([...select.options].map((o) => o.textContent)).toEqual([
      "Native (the API's tool calls)",
      "Text (for models served without tool calling: calls are read from the answer, never from code blocks)",
    ]);
    await addProvider();
    expect(api.addProvider).toHaveBeenLastCalledWith(expect.objectContaining({ name: "Mine", toolCalling: "native" }));

    await input(select, "text", "change");
    await addProvider();
    expect(api.addProvider).toHaveBeenLastCalledWith(expect.objectContaining({ name: "Mine", toolCalling: "text" }));
  });

  it("says so on a provider's row when its calls are read as text", async () => {
    await show("providers");
    const rows = [...root.querySelectorAll<HTMLElement>(".provider-card")];
    expect(rows.map((r) => r.querySelector('[data-role="text-tool-calls"]')?.textContent ?? null)).toEqual([" · tool calls as text", null]);
  });
});

describe("ask-once records", () => {
  it("show the workspace folder each answer was given for", async () => {
    await show("rules");
    expect([...root.querySelectorAll('[data-role="record-workspace"]')].map((c) => c.textContent)).toEqual(["in /home/me/project", "no folder"]);
  });
});

const appSettings: SettingsView = {
  app: {
    theme: "system",
    language: "en",
    turn: { maxRounds: 10, doomLoopThreshold: 3, maxParallel: 4, maxTokens: 4096, temperature: null, retry: { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 8000 }, saveIntervalMs: 250 },
  },
  tools: { defaultOutputLimit: 8000, groups: {}, tools: {}, varMaxCount: 100, varMaxBytes: 1_000_000 },
};
const groups: GroupView[] = [
  {
    name: "basic",
    title: "Basic",
    description: "",
    enabled: true,
    tools: [
      {
        name: "calculate",
        description: "",
        enabled: true,
        executionPolicy: "ask-once",
        resultPolicy: "never",
        defaultExecutionPolicy: "ask-once",
        defaultResultPolicy: "never",
        readOnly: true,
        timeoutMs: 5000,
      },
    ],
  },
];

describe("tools tab", () => {
  beforeEach(() => {
    vi.mocked(api.listToolGroups).mockReset().mockResolvedValue(groups);
  });

  it("offers every policy in its words after the tool's own default", async () => {
    await show("tools", { settings: appSettings, settingsError: null });
    const [exec, result] = [...root.querySelectorAll<HTMLSelectElement>('tr[data-tool="calculate"] select')];
    expect([...(exec?.options ?? [])].map((o) => o.textContent)).toEqual(["Default (Ask once)", "Auto", "Ask once", "Ask always", "Deny"]);
    expect([...(result?.options ?? [])].map((o) => o.textContent)).toEqual(["Default (Never)", "Never", "On error", "Always"]);
  });

  it("shows why the settings could not be read instead of a spinner", async () => {
    await show("tools", { settings: null, settingsError: "settings row is corrupt" });
    expect(root.querySelector('.settings-body [role="status"]')).toBeNull();
    expect(root.querySelector('.settings-body [role="alert"]')?.textContent).toContain("settings row is corrupt");
  });

  it("shows why the tools could not be read", async () => {
    vi.mocked(api.listToolGroups).mockRejectedValue(new Error("registry locked"));
    await show("tools", { settings: appSettings, settingsError: null });
    expect(root.querySelector('.settings-body [role="alert"]')?.textContent).toContain("registry locked");
  });
});

describe("rules tab", () => {
  it("shows why the rules could not be read in their card, not a spinner", async () => {
    vi.mocked(api.listRules).mockRejectedValueOnce(new Error("database locked"));
    await show("rules");
    const card = root.querySelector(".settings-body .card");
    expect(card?.querySelector('[role="alert"]')?.textContent).toContain("database locked");
    expect(card?.querySelector('[role="status"]')).toBeNull();
  });
});
