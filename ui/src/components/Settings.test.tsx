import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ApprovalRecord, Provider } from "../types";

vi.mock("../api", () => ({
  listProviders: vi.fn(),
  addProvider: vi.fn(),
  saveProviderKey: vi.fn(() => Promise.resolve()),
  listRules: vi.fn(() => Promise.resolve([])),
  listRecords: vi.fn(),
}));

import * as api from "../api";
import { type SettingsTab, SettingsView } from "./Settings";

const providers: Provider[] = [
  { id: 1, kind: "openai", name: "Local llama", baseUrl: "http://127.0.0.1:8080/v1", defaultModel: "llama", hasKey: false, toolCalling: "text", createdAt: 0 },
  { id: 2, kind: "anthropic", name: "Claude", baseUrl: "https://api.anthropic.com", defaultModel: "claude", hasKey: true, toolCalling: "native", createdAt: 0 },
];

const records: ApprovalRecord[] = [
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

async function show(tab: SettingsTab) {
  await act(async () => {
    render(
      <SettingsView
        tab={tab}
        onTab={() => {}}
        settings={null}
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
