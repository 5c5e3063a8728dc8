import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../i18n";
import type { ChatRow, PendingApproval, SandboxReport, SandboxSupport } from "../types";

vi.mock("../api", () => ({
  answerApproval: vi.fn(() => Promise.resolve()),
  answerQuestion: vi.fn(() => Promise.resolve()),
  sandboxSupport: vi.fn(() => Promise.resolve({ landlockAbi: 7, namespaces: true, gapsNetworkOff: [], gapsNetworkOn: [] })),
  sandboxHiddenPaths: vi.fn(() => Promise.resolve(["~/.ssh", "~/.aws"])),
  setChatSandbox: vi.fn(() => Promise.resolve()),
}));

import * as api from "../api";
import { ApprovalCard } from "./ApprovalCard";
import { SandboxSettings } from "./Sandbox";
import { finishedCall } from "./testCalls";
import { ToolCard } from "./ToolCard";
import { unmount } from "./testRoot";

let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
  vi.mocked(api.setChatSandbox).mockReset().mockResolvedValue(undefined);
  vi.mocked(api.sandboxSupport).mockReset().mockResolvedValue(FULL);
});
afterEach(async () => {
  await unmount(root);
  setLanguage("en");
});

const FULL: SandboxSupport = { landlockAbi: 7, namespaces: true, gapsNetworkOff: [], gapsNetworkOn: [] };

const confined: SandboxReport = { level: "workspaceOnly", network: false, mode: "confined" };

function shellApproval(sandbox: SandboxReport): PendingApproval {
  return {
    id: "ap-1",
    chat: 3,
    seq: 1,
    callId: "c",
    tool: "run_command",
    group: "shell",
    createdAt: 0,
    request: {
      kind: "execution",
      arguments: { command: "touch ~/outside" },
      preview: { type: "command", command: "touch ~/outside", cwd: "/w" },
      policy: "ask-always",
      reason: { type: "askAlways" },
      ruleSubject: "command",
      suggestedPattern: null,
      sandbox,
    },
  };
}

function ranCall(sandbox: SandboxReport) {
  return finishedCall('{"command":"touch ~/outside"}', {
    decision: { execution: "allow", result: null },
    decidedBy: "user",
    preview: "Exit code 1.",
    content: "Exit code 1.",
    sandbox,
  });
}

const text = (role: string) => root.querySelector(`[data-role="${role}"]`)?.textContent ?? null;

describe("the sandbox on the cards", () => {
  it("the approval card says which level the command will run under", async () => {
    await act(() => {
      render(<ApprovalCard approval={shellApproval(confined)} active position={1} total={1} onDecided={() => {}} />, root);
    });
    expect(text("sandbox-approval")).toContain("Will run in the sandbox: workspace only, network off");
    expect(text("sandbox-environment")).toBe(
      "A clean environment: no session bus, display, agent or secret variables; its own processes, /tmp and /run.",
    );
    expect(root.querySelector('[data-role="sandbox-gaps"]')).toBeNull();
    expect(root.querySelector('[data-role="sandbox-approval"]')?.classList.contains("is-open")).toBe(false);
  });

  it("a partial sandbox says so and what this system does not enforce, never 'confined'", async () => {
    const partial: SandboxReport = { ...confined, mode: "partial", gaps: ["localSockets", "udp"] };
    await act(() => {
      render(<ApprovalCard approval={shellApproval(partial)} active position={1} total={1} onDecided={() => {}} />, root);
    });
    expect(text("sandbox-approval")).toContain("Will run partly in the sandbox: workspace only, network off");
    expect(text("sandbox-gaps")).toBe(
      'This system does not enforce:local services stay reachable (the session bus and keyring, the display, SSH and GPG agents, Docker)blocking UDP and DNS while the network is off (so a command\'s output counts as from the network, and "ways out off" hides commands)',
    );
    expect(root.querySelector('[data-role="sandbox-approval"]')?.classList.contains("is-open")).toBe(true);
  });

  it("no sandbox is said on the card as a warning, never left out", async () => {
    await act(() => {
      render(
        <ApprovalCard approval={shellApproval({ ...confined, mode: "unavailable" })} active position={1} total={1} onDecided={() => {}} />,
        root,
      );
    });
    expect(text("sandbox-approval")).toBe("Will run with full access: no sandbox on this system");
    expect(root.querySelector('[data-role="sandbox-approval"]')?.classList.contains("is-open")).toBe(true);
  });

  it("the tool card shows what the sandbox blocked, also when the card is open", async () => {
    const call = ranCall({ ...confined, blocked: ["writing outside the workspace: /root/outside"] });
    await act(() => {
      render(<ToolCard call={call} />, root);
    });
    expect(text("sandbox-blocked")).toBe("Blocked by the sandbox:writing outside the workspace: /root/outside");
    expect(text("sandbox-result")).toContain("Ran in the sandbox: workspace only, network off");
    await act(() => {
      root.querySelector<HTMLButtonElement>(".tool-card-head")?.click();
    });
    expect(text("sandbox-blocked")).toContain("/root/outside");
  });

  it("a blocked call's rerun first shows exactly what runs, where, and the files the blocked run changed", async () => {
    const onRerun = vi.fn();
    const call = ranCall({
      ...confined,
      blocked: ["writing outside the workspace: /root/outside"],
      workspace: "/home/ann/project",
      changed: ["Makefile", "build.sh"],
    });
    await act(() => {
      render(<ToolCard call={call} onRerun={onRerun} />, root);
    });
    const button = root.querySelector<HTMLButtonElement>('[data-role="sandbox-rerun"]');
    expect(button?.textContent).toBe("Run again without the sandbox");
    await act(() => {
      button?.click();
    });
    expect(onRerun).not.toHaveBeenCalled();
    expect(text("sandbox-rerun-command")).toBe("touch ~/outside");
    expect(text("sandbox-rerun-workspace")).toBe("/home/ann/project");
    expect(text("sandbox-rerun-changed")).toBe("The blocked run changed these files; they run as it left them:Makefilebuild.sh");
    // Cancel has the focus: Enter there, or Escape anywhere in the question, runs nothing.
    const focused = document.activeElement as HTMLButtonElement;
    expect(focused.textContent).toBe("Cancel");
    await act(() => {
      root.querySelector('[data-role="sandbox-rerun-run"]')?.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    });
    expect(root.querySelector('[data-role="sandbox-rerun-confirm"]')).toBeNull();
    expect(onRerun).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(root.querySelector('[data-role="sandbox-rerun"]'));
    await act(() => {
      root.querySelector<HTMLButtonElement>('[data-role="sandbox-rerun"]')?.click();
    });
    await act(() => {
      root.querySelector<HTMLButtonElement>('[data-role="sandbox-rerun-run"]')?.click();
    });
    expect(onRerun).toHaveBeenCalledWith("touch ~/outside");
    expect(root.querySelector('[data-role="sandbox-rerun-confirm"]')).toBeNull();
  });

  it("no rerun while a turn runs, for a call that ran unconfined, or without a block", async () => {
    const blocked = { ...confined, blocked: ["writing outside the workspace: /x"] };
    for (const [report, onRerun] of [
      [blocked, undefined],
      [{ ...blocked, mode: "off" as const }, vi.fn()],
      [confined, vi.fn()],
    ] as const) {
      await act(() => {
        render(<ToolCard call={ranCall(report)} onRerun={onRerun} />, root);
      });
      expect(root.querySelector('[data-role="sandbox-rerun"]')).toBeNull();
    }
  });

  it("a call without a sandbox report shows no sandbox line", async () => {
    const call = { ...ranCall(confined), sandbox: null };
    await act(() => {
      render(<ToolCard call={call} />, root);
    });
    expect(root.querySelector('[data-role="sandbox-result"]')).toBeNull();
  });
});

const chat: ChatRow = {
  id: 7,
  title: "Build",
  providerId: null,
  model: "",
  systemPrompt: "",
  workspace: "/w",
  toolOverrides: { groups: {}, tools: {}, sandbox: { level: "workspaceOnly", network: false } },
  params: {},
  createdAt: 0,
  updatedAt: 0,
};

async function mountSettings(row: ChatRow = chat) {
  const onChanged = vi.fn();
  await act(() => {
    render(<SandboxSettings chat={row} onChanged={onChanged} />, root);
  });
  await act(() => Promise.resolve());
  return onChanged;
}

const radio = (level: string) => {
  const el = root.querySelector<HTMLInputElement>(`input[type="radio"][value="${level}"]`);
  if (!el) throw new Error(`no ${level} radio`);
  return el;
};

describe("the chat's sandbox settings", () => {
  it("choosing Off asks first; Enter on the focused Cancel keeps the sandbox", async () => {
    await mountSettings();
    expect(radio("workspaceOnly").checked).toBe(true);
    await act(() => {
      radio("off").click();
    });
    const confirm = root.querySelector('[data-role="sandbox-confirm-off"]');
    expect(confirm?.textContent).toContain("read your secret folders");
    expect(api.setChatSandbox).not.toHaveBeenCalled();
    // Cancel has the focus: a stray Enter or Space does not turn the sandbox off.
    const focused = document.activeElement as HTMLButtonElement;
    expect(focused.textContent).toBe("Cancel");
    await act(() => {
      focused.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
      focused.click();
    });
    expect(root.querySelector('[data-role="sandbox-confirm-off"]')).toBeNull();
    expect(api.setChatSandbox).not.toHaveBeenCalled();
  });

  it("confirming turns it off with the confirmation sent along", async () => {
    const onChanged = await mountSettings();
    await act(() => {
      radio("off").click();
    });
    const turnOff = [...root.querySelectorAll<HTMLButtonElement>('[data-role="sandbox-confirm-off"] button')].find(
      (b) => b.textContent === "Turn the sandbox off",
    );
    await act(async () => {
      turnOff?.click();
      await Promise.resolve();
    });
    expect(api.setChatSandbox).toHaveBeenCalledWith(7, { level: "off", network: false }, true);
    expect(onChanged).toHaveBeenCalled();
  });

  it("a choice that finishes saving while Off is being asked about leaves the question open", async () => {
    let finish = () => {};
    vi.mocked(api.setChatSandbox).mockImplementationOnce(
      () =>
        new Promise<void>((resolve) => {
          finish = resolve;
        }),
    );
    await mountSettings();
    await act(() => {
      radio("readOnly").click();
    });
    // Quicker than the save: the user goes on to Off.
    await act(() => {
      radio("off").click();
    });
    expect(root.querySelector('[data-role="sandbox-confirm-off"]')).not.toBeNull();
    await act(async () => {
      finish();
      await Promise.resolve();
    });
    expect(root.querySelector('[data-role="sandbox-confirm-off"]')).not.toBeNull();
    expect(api.setChatSandbox).toHaveBeenCalledTimes(1);
    expect(api.setChatSandbox).toHaveBeenLastCalledWith(7, { level: "readOnly", network: false }, false);
  });

  it("read-only and the network switch save at once, without asking", async () => {
    await mountSettings();
    await act(async () => {
      radio("readOnly").click();
      await Promise.resolve();
    });
    expect(api.setChatSandbox).toHaveBeenLastCalledWith(7, { level: "readOnly", network: false }, false);
    const network = root.querySelector<HTMLInputElement>('.sandbox-network input[value="network-on"]');
    await act(async () => {
      network?.click();
      await Promise.resolve();
    });
    expect(api.setChatSandbox).toHaveBeenLastCalledWith(7, { level: "workspaceOnly", network: true, hosts: [] }, false);
  });

  it("only these hosts: the listed hosts are saved with the network off, on Enter from the field", async () => {
    await mountSettings();
    await act(() => {
      root.querySelector<HTMLInputElement>('.sandbox-network input[value="network-hosts"]')?.click();
    });
    // Nothing to save before a host is typed.
    expect(api.setChatSandbox).not.toHaveBeenCalled();
    const field = root.querySelector<HTMLInputElement>('[data-role="sandbox-hosts"]');
    expect(field).not.toBeNull();
    await act(async () => {
      if (field) {
        field.value = "registry.npmjs.org, *.pypi.org";
        field.dispatchEvent(new Event("input", { bubbles: true }));
        field.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
      }
      await Promise.resolve();
    });
    expect(api.setChatSandbox).toHaveBeenLastCalledWith(
      7,
      { level: "workspaceOnly", network: false, hosts: ["registry.npmjs.org", "*.pypi.org"] },
      false,
    );
  });

  it("a card says which hosts a command may reach", async () => {
    await act(() => {
      render(
        <ApprovalCard approval={shellApproval({ ...confined, hosts: ["registry.npmjs.org"] })} active position={1} total={1} onDecided={() => {}} />,
        root,
      );
    });
    expect(text("sandbox-approval")).toContain("Will run in the sandbox: workspace only, network only to registry.npmjs.org");
  });

  it("says once, plainly, when this system has no sandbox", async () => {
    vi.mocked(api.sandboxSupport).mockResolvedValue({
      landlockAbi: 0,
      namespaces: false,
      unavailable: "the kernel has no Landlock",
      gapsNetworkOff: [],
      gapsNetworkOn: [],
    });
    await mountSettings();
    expect(text("sandbox-unsupported")).toBe("No sandbox on this system (the kernel has no Landlock): commands run with your full access.");
    expect(root.querySelector('[data-role="sandbox-support"]')).toBeNull();
  });

  it("says what this system enforces, by the chat's network switch, and lists the paths never read", async () => {
    vi.mocked(api.sandboxSupport).mockResolvedValue({
      landlockAbi: 5,
      namespaces: false,
      namespacesMissing: "bubblewrap (bwrap) is not installed",
      gapsNetworkOff: ["localSockets", "udp"],
      gapsNetworkOn: ["localSockets"],
    });
    await mountSettings();
    expect(text("sandbox-support")).toContain(
      "This system enforces part of it (Landlock ABI 5; no namespaces: bubblewrap (bwrap) is not installed).",
    );
    expect(root.querySelectorAll('[data-role="sandbox-support-gaps"] li').length).toBe(2);
    expect(text("sandbox-hidden")).toContain("~/.ssh");
    await mountSettings({ ...chat, toolOverrides: { ...chat.toolOverrides, sandbox: { level: "workspaceOnly", network: true } } });
    expect(root.querySelectorAll('[data-role="sandbox-support-gaps"] li').length).toBe(1);
  });

  it("variables for the chat's commands are saved from NAME=value lines when the field is left", async () => {
    await mountSettings();
    const field = root.querySelector<HTMLTextAreaElement>('[data-role="sandbox-env"]');
    await act(async () => {
      if (field) {
        field.value = "RUST_LOG=debug\nnot a line\nCI=1";
        field.dispatchEvent(new Event("input", { bubbles: true }));
        field.dispatchEvent(new FocusEvent("blur"));
      }
      await Promise.resolve();
    });
    expect(api.setChatSandbox).toHaveBeenLastCalledWith(7, { level: "workspaceOnly", network: false, env: { RUST_LOG: "debug", CI: "1" } }, false);
  });

  it("the card names the variables the chat added", async () => {
    await act(() => {
      render(
        <ApprovalCard approval={shellApproval({ ...confined, env: ["CI", "RUST_LOG"] })} active position={1} total={1} onDecided={() => {}} />,
        root,
      );
    });
    expect(text("sandbox-environment")).toContain("Added for this chat: CI, RUST_LOG.");
  });

  it("git's hooks stay read-only unless the user lets commands change them", async () => {
    await mountSettings();
    const git = root.querySelector<HTMLInputElement>('[data-role="sandbox-git-writable"]');
    expect(git?.checked).toBe(false);
    await act(async () => {
      git?.click();
      await Promise.resolve();
    });
    expect(api.setChatSandbox).toHaveBeenLastCalledWith(7, { level: "workspaceOnly", network: false, gitWritable: true }, false);
  });
});
