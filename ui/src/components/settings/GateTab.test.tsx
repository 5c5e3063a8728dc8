import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SettingsView, WrittenFile } from "../../types";

/** What the backend holds: the files written from untrusted content. */
const written: { files: WrittenFile[] } = { files: [] };

vi.mock("../../api", () => ({
  writtenFiles: vi.fn(() => Promise.resolve([...written.files])),
  trustWrittenFile: vi.fn((workspace: string, path: string) => {
    written.files = written.files.filter((f) => !(f.workspace === workspace && f.path === path));
    return Promise.resolve();
  }),
  setToolSettings: vi.fn(),
  getSettings: vi.fn(),
  autonomy: vi.fn(() => Promise.resolve({ consequential: 10, byPolicy: 2, byRule: 5, byRecord: 1, byPlan: 0, escalated: 2, endorsed: 1, asked: 2 })),
  pickFolder: vi.fn(() => Promise.resolve(null)),
}));

import * as api from "../../api";
import { ToolSettingsBackend, toolSettings } from "../../testing/settings";
import { forgetSavedToolSettings } from "../../toolSettingsSave";
import { unmount } from "../testRoot";
import { GateTab, trustKey } from "./GateTab";

const save = vi.mocked(api.setToolSettings);

const view = (): SettingsView =>
  ({
    app: {} as SettingsView["app"],
    tools: toolSettings(),
  }) as SettingsView;

let root: HTMLElement;
let current: SettingsView;
let backend: ToolSettingsBackend;
const confirm = vi.fn<(message: string, action: () => Promise<void>) => void>();

async function show() {
  await act(async () => {
    render(
      <GateTab
        settings={current}
        settingsError={null}
        onReloadSettings={() => {}}
        onSettings={(s) => {
          current = s;
        }}
        onConfirm={confirm}
      />,
      root,
    );
  });
  for (let i = 0; i < 3; i++) await act(async () => {});
}

async function type(el: HTMLInputElement | HTMLSelectElement | null, value: string, event = "input") {
  await act(async () => {
    if (!el) throw new Error("no field");
    el.value = value;
    el.dispatchEvent(new Event(event, { bubbles: true }));
  });
}

beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
  current = view();
  backend = new ToolSettingsBackend();
  forgetSavedToolSettings();
  save.mockReset().mockImplementation(backend.save);
  vi.mocked(api.getSettings)
    .mockReset()
    .mockImplementation(() => Promise.resolve({ ...view(), tools: backend.stored }));
  confirm.mockReset();
  written.files = [];
});
afterEach(() => unmount(root));

describe("Settings → Gate", () => {
  it("trusts a pasted address as its host, and says so in every chat's settings", async () => {
    await show();
    expect(root.textContent).toContain("Nothing trusted yet");
    await type(root.querySelector("[data-role=trust-value]"), "https://docs.rs/serde/latest");
    await act(async () => {
      root.querySelector("[data-role=trusted] form")?.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
    });
    expect(save).toHaveBeenCalledTimes(1);
    expect(save.mock.calls[0]?.[0].guard.trusted).toEqual([{ type: "host", host: "docs.rs" }]);
    expect(current.tools.guard.trusted).toEqual([{ type: "host", host: "docs.rs" }]);
  });

  it("never writes a confirmation made elsewhere away with the copy it loaded before", async () => {
    await show();
    // While the tab is open, the user confirms a server's review in a chat: the backend now
    // holds the effects they chose for its tool, at a newer revision than the tab's copy.
    const chosen = { writes: false, executes: false, sendsOut: false, irreversible: false, readsPrivate: true };
    backend.changeElsewhere((tools) => ({ ...tools, tools: { ...tools.tools, mail__inbox: { effects: chosen } } }));
    await type(root.querySelector("[data-role=trust-value]"), "docs.rs");
    await act(async () => {
      root.querySelector("[data-role=trusted] form")?.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
    });
    for (let i = 0; i < 3; i++) await act(async () => {});
    // The stale save was refused, and the trust was saved again on the newest settings.
    expect(save).toHaveBeenCalledTimes(2);
    expect(backend.stored.tools["mail__inbox"]?.effects).toEqual(chosen);
    expect(backend.stored.guard.trusted).toEqual([{ type: "host", host: "docs.rs" }]);
    expect(current.tools.tools["mail__inbox"]?.effects).toEqual(chosen);
    expect(root.querySelector(".inline-error")).toBeNull();
  });

  it("asks before turning the gate off, and saves only when the user confirms", async () => {
    await show();
    const toggle = root.querySelector<HTMLInputElement>("[data-role=gate-enabled]");
    await act(async () => {
      toggle?.click();
    });
    expect(confirm).toHaveBeenCalledTimes(1);
    expect(confirm.mock.calls[0]?.[0]).toContain("can make it act under your rules without a card");
    expect(save).not.toHaveBeenCalled();
    await act(async () => {
      await confirm.mock.calls[0]?.[1]();
    });
    expect(save.mock.calls[0]?.[0].guard.enabled).toBe(false);
  });

  it("marks a folder untrusted and shows the autonomy figures across all chats", async () => {
    await show();
    await type(root.querySelector("[data-role=untrusted-value]"), "/home/u/Downloads");
    await act(async () => {
      root.querySelector("[data-role=untrusted-folders] form")?.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
    });
    expect(save.mock.calls[0]?.[0].guard.untrustedFolders).toEqual(["/home/u/Downloads"]);
    expect(root.querySelector("[data-role=autonomy]")?.textContent).toContain("8 of 10 calls that change or send something ran without asking");
  });

  it("lists the files written from untrusted content and trusts one on request, leaving the others", async () => {
    const page = { type: "web", url: "https://evil.example/p", host: "evil.example" } as const;
    written.files = [
      { workspace: "/home/u/proj", path: "notes/todo.md", sources: [page], writtenAt: Date.now() },
      { workspace: "/home/u/proj", path: "plan.md", sources: [page], writtenAt: Date.now() },
    ];
    await show();
    const rows = () => Array.from(root.querySelectorAll<HTMLElement>("[data-role=written-files] .written-file"));
    expect(rows().map((r) => r.dataset.path)).toEqual(["notes/todo.md", "plan.md"]);
    expect(rows()[0]?.textContent).toContain("/home/u/proj");
    expect(rows()[0]?.textContent).toContain("evil.example");
    await act(async () => rows()[0]?.querySelector<HTMLButtonElement>("[data-role=trust-file]")?.click());
    for (let i = 0; i < 3; i++) await act(async () => {});
    expect(api.trustWrittenFile).toHaveBeenCalledWith("/home/u/proj", "notes/todo.md");
    expect(rows().map((r) => r.dataset.path)).toEqual(["plan.md"]);
  });

  it("says when no file was written from untrusted content", async () => {
    await show();
    expect(root.querySelector("[data-role=written-files]")?.textContent).toContain("No file written from untrusted content.");
  });

  it("reads what the user typed as the kind of thing it is", () => {
    expect(trustKey("host", " Docs.RS ")).toEqual({ type: "host", host: "docs.rs" });
    expect(trustKey("host", "*.Docs.rs")).toEqual({ type: "host", host: "*.docs.rs" });
    expect(trustKey("host", "https://www.docs.rs/serde")).toEqual({ type: "host", host: "www.docs.rs" });
    expect(trustKey("server", "mail")).toEqual({ type: "server", server: "mail" });
    expect(trustKey("folder", "  ")).toBeNull();
  });
});
