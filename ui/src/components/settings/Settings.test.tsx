import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ApprovalRecordRow, GroupView, ProviderConfig, SettingsView, ToolSettings } from "../../types";

vi.mock("../../api", () => ({
  listToolGroups: vi.fn(),
  listProviders: vi.fn(),
  addProvider: vi.fn(),
  updateProvider: vi.fn(),
  detectLocalServers: vi.fn(() => Promise.resolve([])),
  listPresets: vi.fn(() => Promise.resolve([])),
  savePreset: vi.fn(() => Promise.resolve({})),
  deletePreset: vi.fn(() => Promise.resolve(true)),
  setAppSettings: vi.fn(() => Promise.resolve()),
  setToolSettings: vi.fn((s: ToolSettings) => Promise.resolve({ ...s, revision: s.revision + 1 })),
  saveProviderKey: vi.fn(() => Promise.resolve()),
  listRules: vi.fn(() => Promise.resolve([])),
  listRecords: vi.fn(),
}));

import * as api from "../../api";
import { type SettingsTab, SettingsScreen } from "./Settings";
import { unmount } from "../testRoot";
import { commandError } from "../../testing/backend";
import { NO_EFFECTS, toolSettings } from "../../testing/settings";
import { forgetSavedToolSettings } from "../../toolSettingsSave";

const providers: ProviderConfig[] = [
  {
    id: 1,
    kind: "openai",
    name: "Local llama",
    baseUrl: "http://127.0.0.1:8080/v1",
    defaultModel: "llama",
    hasKey: false,
    toolCalling: "text",
    options: { requestStyle: "auto" },
    createdAt: 0,
  },
  {
    id: 2,
    kind: "anthropic",
    name: "Claude",
    baseUrl: "https://api.anthropic.com",
    defaultModel: "claude",
    hasKey: true,
    toolCalling: "native",
    options: { requestStyle: "auto", thinkingBudget: 8192 },
    createdAt: 0,
  },
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
afterEach(() => {
  unmount(root);
  forgetSavedToolSettings();
});

async function show(
  tab: SettingsTab,
  settings: { settings: SettingsView | null; settingsError: string | null } = { settings: null, settingsError: null },
) {
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
  // A save goes through the saves queue (toolSettingsSave): let its promises settle.
  for (let i = 0; i < 3; i++) await act(async () => {});
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

    // The form starts afresh after an add.
    const again = root.querySelector<HTMLSelectElement>('[data-role="tool-calling"]');
    if (!again) throw new Error("no tool-calling select");
    expect(again.value).toBe("native");
    await input(again, "text", "change");
    await addProvider();
    expect(api.addProvider).toHaveBeenLastCalledWith(expect.objectContaining({ name: "Mine", toolCalling: "text" }));
  });

  it("says so on a provider's row when its calls are read as text", async () => {
    await show("providers");
    const rows = [...root.querySelectorAll<HTMLElement>(".provider-card")];
    expect(rows.map((r) => r.querySelector('[data-role="text-tool-calls"]')?.textContent ?? null)).toEqual([" · tool calls as text", null]);
  });
});

describe("provider options", () => {
  it("edits a provider in place, with request parameters for OpenAI-compatible servers", async () => {
    vi.mocked(api.updateProvider).mockResolvedValue(providers[0]!);
    await show("providers");
    const card = root.querySelector<HTMLElement>('[data-provider="1"]');
    const edit = card?.querySelector<HTMLButtonElement>('[data-role="edit-provider"]');
    if (!card || !edit) throw new Error("no edit button");
    await act(async () => edit.click());
    const form = card.querySelector<HTMLFormElement>('[data-role="provider-edit"]');
    const style = form?.querySelector<HTMLSelectElement>('[data-role="request-style"]');
    if (!form || !style) throw new Error("no edit form");
    expect(form.querySelectorAll<HTMLInputElement>("input")[0]?.value).toBe("Local llama");
    expect(form.querySelector('[type="password"]')).toBeNull();
    expect(form.querySelector('[data-role="thinking"]')).toBeNull();
    await input(style, "reasoning", "change");
    await act(async () => {
      form.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
    });
    expect(api.updateProvider).toHaveBeenCalledWith(1, {
      kind: "openai",
      name: "Local llama",
      baseUrl: "http://127.0.0.1:8080/v1",
      defaultModel: "llama",
      toolCalling: "text",
      options: { requestStyle: "reasoning" },
    });
    expect(card.querySelector('[data-role="provider-edit"]')).toBeNull();
  });

  it("turns Anthropic's extended thinking on with a budget, and refuses a budget under the minimum", async () => {
    await show("providers");
    const form = root.querySelector<HTMLFormElement>(".add-provider");
    const kind = form?.querySelector<HTMLSelectElement>("select");
    if (!form || !kind) throw new Error("no add form");
    await input(kind, "anthropic", "change");
    expect(form.querySelector('[data-role="request-style"]')).toBeNull();
    expect(form.querySelector('[data-role="tool-calling"]')).toBeNull();
    const thinking = form.querySelector<HTMLInputElement>('[data-role="thinking"]');
    if (!thinking) throw new Error("no thinking switch");
    await act(async () => thinking.click());
    const budget = form.querySelector<HTMLInputElement>('[data-role="thinking-budget"]');
    if (!budget) throw new Error("no budget");
    await input(budget, "500");
    await addProvider();
    expect(api.addProvider).not.toHaveBeenCalled();
    expect(form.querySelector(".inline-error")?.textContent).toContain("1,024");
    await input(budget, "8192");
    await addProvider();
    expect(api.addProvider).toHaveBeenLastCalledWith(
      expect.objectContaining({ kind: "anthropic", toolCalling: "native", options: { requestStyle: "auto", thinkingBudget: 8192 } }),
    );
  });

  it("shows a provider's thinking budget on its card", async () => {
    await show("providers");
    expect(root.querySelector('[data-provider="2"] [data-role="thinking-on"]')?.textContent).toBe(" · thinking 8192 tokens");
  });
});

describe("local servers", () => {
  it("offers each running server with its models and adds the picked one in one click", async () => {
    vi.mocked(api.detectLocalServers).mockResolvedValue([
      { name: "Ollama", baseUrl: "http://127.0.0.1:11434/v1", models: ["llama3.2", "qwen3:8b"] },
      { name: "llama.cpp", baseUrl: "http://127.0.0.1:8080/v1", models: ["llama"] },
    ]);
    await show("providers");
    const servers = [...root.querySelectorAll<HTMLElement>(".local-server")];
    expect(servers.map((s) => s.dataset.server)).toEqual(["Ollama", "llama.cpp"]);
    // llama.cpp's address is already a provider: it says so instead of offering it again.
    expect(servers[1]?.querySelector(".ok-text")?.textContent).toBe("Added");
    expect(servers[1]?.querySelector("button")).toBeNull();
    const pick = servers[0]?.querySelector<HTMLSelectElement>("select");
    const add = servers[0]?.querySelector<HTMLButtonElement>("button");
    if (!pick || !add) throw new Error("no offer");
    expect(add.textContent).toBe("Add Ollama");
    await input(pick, "qwen3:8b", "change");
    await act(async () => add.click());
    expect(api.addProvider).toHaveBeenCalledWith({
      kind: "openai",
      name: "Ollama",
      baseUrl: "http://127.0.0.1:11434/v1",
      defaultModel: "qwen3:8b",
      toolCalling: "native",
      options: { requestStyle: "auto" },
    });
  });

  it("says which ports were tried when nothing runs", async () => {
    vi.mocked(api.detectLocalServers).mockResolvedValue([]);
    await show("providers");
    expect(root.querySelector('[data-role="local-servers"]')?.textContent).toContain("11434, 1234, 8080");
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
        effects: NO_EFFECTS,
        defaultEffects: NO_EFFECTS,
        effectsClaimed: false,
        targets: [],
        defaultTargets: [],
      },
    ],
  },
];

describe("assistants tab", () => {
  it("adds an assistant with its prompt, parameters and tool groups", async () => {
    vi.mocked(api.listToolGroups).mockResolvedValue(groups);
    await show("presets");
    expect(root.textContent).toContain("No assistants yet.");
    await act(async () => root.querySelector<HTMLButtonElement>('[data-role="add-preset"]')?.click());
    const form = root.querySelector<HTMLFormElement>('[data-role="preset-form"]');
    if (!form) throw new Error("no preset form");
    const submit = () =>
      act(async () => {
        form.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
      });
    await submit();
    expect(form.querySelector(".inline-error")?.textContent).toBe("An assistant needs a name.");
    const name = form.querySelector<HTMLInputElement>('[data-role="preset-name"]');
    const prompt = form.querySelector<HTMLTextAreaElement>('[data-role="preset-prompt"]');
    const group = form.querySelector<HTMLSelectElement>('[data-group="basic"] select');
    const selects = form.querySelectorAll<HTMLSelectElement>("select");
    const numbers = form.querySelectorAll<HTMLInputElement>('input[type="number"]');
    if (!name || !prompt || !group || !numbers[0]) throw new Error("fields missing");
    expect([...group.options].map((o) => o.textContent)).toEqual(["As in Settings (On)", "On", "Off"]);
    await input(name, "Reviewer");
    await input(prompt as unknown as HTMLInputElement, "Review code.");
    await input(numbers[0], "0.3");
    await input(group, "off", "change");
    await input(selects[0]!, "2", "change");
    await submit();
    expect(api.savePreset).toHaveBeenCalledWith(null, {
      name: "Reviewer",
      systemPrompt: "Review code.",
      model: "",
      params: { temperature: 0.3 },
      groups: { basic: false },
      providerId: 2,
    });
  });
});

describe("general tab", () => {
  it("saves the retry count and the stream idle timeout in seconds", async () => {
    await show("general", { settings: appSettings, settingsError: null });
    const retries = root.querySelector<HTMLInputElement>('[data-role="max-retries"]');
    const idle = root.querySelector<HTMLInputElement>('[data-role="idle-timeout"]');
    const form = retries?.closest("form");
    if (!retries || !idle || !form) throw new Error("no retry fields");
    expect([retries.value, idle.value]).toEqual(["2", "90"]);
    await input(retries, "6");
    await input(idle, "45");
    await act(async () => {
      form.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
    });
    expect(api.setAppSettings).toHaveBeenLastCalledWith(
      expect.objectContaining({ turn: expect.objectContaining({ idleTimeoutMs: 45_000, retry: expect.objectContaining({ maxRetries: 6 }) }) }),
    );
    await input(idle, "1");
    const calls = vi.mocked(api.setAppSettings).mock.calls.length;
    await act(async () => {
      form.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
    });
    expect(vi.mocked(api.setAppSettings).mock.calls.length).toBe(calls);
    expect(form.querySelector(".inline-error")?.textContent).toContain("at least 5 s");
  });
});

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

  it("counts each saved change, and the notice stays a moment after the last one, not the first", async () => {
    vi.useFakeTimers();
    try {
      await show("tools", { settings: appSettings, settingsError: null });
      const tab = () => root.querySelector<HTMLElement>('[data-role="tool-settings"]');
      const notice = () => tab()?.querySelector(".ok-text")?.textContent ?? null;
      expect(tab()?.dataset["saves"]).toBe("0");
      const exec = () => root.querySelector<HTMLSelectElement>('tr[data-tool="calculate"] select');
      await input(exec()!, "auto", "change");
      expect(tab()?.dataset["saves"]).toBe("1");
      expect(notice()).toBe("Tool settings saved");
      await act(async () => {
        vi.advanceTimersByTime(1000);
      });
      await input(exec()!, "ask-always", "change");
      expect(tab()?.dataset["saves"]).toBe("2");
      // 1.5 s after the first save: the notice of the second is still there.
      await act(async () => {
        vi.advanceTimersByTime(1000);
      });
      expect(notice()).toBe("Tool settings saved");
      await act(async () => {
        vi.advanceTimersByTime(600);
      });
      expect(notice()).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it("shows why the settings could not be read instead of a spinner", async () => {
    await show("tools", { settings: null, settingsError: "settings row is corrupt" });
    expect(root.querySelector('.settings-body [role="status"]')).toBeNull();
    expect(root.querySelector('.settings-body [role="alert"]')?.textContent).toContain("settings row is corrupt");
  });

  it("shows why the tools could not be read", async () => {
    vi.mocked(api.listToolGroups).mockRejectedValue(commandError("internal", "registry locked"));
    await show("tools", { settings: appSettings, settingsError: null });
    expect(root.querySelector('.settings-body [role="alert"]')?.textContent).toContain("registry locked");
  });
});

describe("rules tab", () => {
  it("shows why the rules could not be read in their card, not a spinner", async () => {
    vi.mocked(api.listRules).mockRejectedValueOnce(commandError("storage", "database locked"));
    await show("rules");
    const card = root.querySelector(".settings-body .card");
    expect(card?.querySelector('[role="alert"]')?.textContent).toContain("database locked");
    expect(card?.querySelector('[role="status"]')).toBeNull();
  });
});
