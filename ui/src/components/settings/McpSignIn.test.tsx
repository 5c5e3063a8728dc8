import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { McpServerView } from "../../types";

vi.mock("../../api", () => ({
  signInMcpServer: vi.fn(() => Promise.resolve()),
  cancelMcpSignIn: vi.fn(() => Promise.resolve(true)),
  signOutMcpServer: vi.fn(() => Promise.resolve()),
}));

import * as api from "../../api";
import { commandError } from "../../testing/backend";
import { unmount } from "../testRoot";
import { SignInLine } from "./McpSignIn";

const signIn = vi.mocked(api.signInMcpServer);
const signOut = vi.mocked(api.signOutMcpServer);
const cancel = vi.mocked(api.cancelMcpSignIn);

function server(
  over: Partial<McpServerView> = {},
  status: McpServerView["state"]["status"] = { state: "needsSignIn", expired: false },
): McpServerView {
  return {
    config: {
      name: "tracker",
      enabled: true,
      transport: { type: "http", url: "https://mcp.example.com/mcp", headers: {} },
      timeoutSecs: 60,
      executionPolicy: null,
      resultPolicy: null,
      views: true,
      shareWorkspace: false,
      shareModel: false,
    },
    state: {
      name: "tracker",
      status,
      serverName: null,
      serverVersion: null,
      protocolVersion: null,
      instructions: null,
      tools: [],
      resources: 0,
      prompts: 0,
      review: "unreviewed",
    },
    signIn: null,
    signingIn: false,
    ...over,
  };
}

let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
  signIn.mockReset();
  signIn.mockResolvedValue({
    issuer: "https://auth.example.com",
    resource: "https://mcp.example.com/mcp",
    scopes: [],
    signedInAt: 0,
    expiresAt: null,
  });
  signOut.mockClear();
  cancel.mockClear();
});
afterEach(async () => {
  await unmount(root);
});

describe("a remote server's sign-in", () => {
  it("asks to sign in, and signs in from the keyboard", async () => {
    const changed = vi.fn();
    await act(() => {
      render(<SignInLine server={server()} onChanged={changed} />, root);
    });
    expect(root.querySelector("[data-role=sign-in-needed]")?.textContent).toBe("This server needs you to sign in.");
    const button = root.querySelector<HTMLButtonElement>("[data-role=sign-in]");
    expect(button?.textContent).toBe("Sign in");
    button?.focus();
    await act(async () => {
      button?.click();
    });
    expect(signIn).toHaveBeenCalledWith("tracker");
    expect(changed).toHaveBeenCalled();
  });

  it("says an expired sign-in expired, and shows why a sign-in failed", async () => {
    signIn.mockRejectedValueOnce(
      commandError("invalid", 'signing in to "tracker" failed: the sign-in was cancelled', {
        invalid: { type: "mcpSignIn", server: "tracker", reason: "the sign-in was cancelled" },
      }),
    );
    await act(() => {
      render(<SignInLine server={server({}, { state: "needsSignIn", expired: true })} onChanged={() => {}} />, root);
    });
    expect(root.querySelector("[data-role=sign-in-needed]")?.textContent).toBe("Your sign-in to this server expired or was revoked.");
    await act(async () => {
      root.querySelector<HTMLButtonElement>("[data-role=sign-in]")?.click();
    });
    expect(root.querySelector("[role=alert]")?.textContent).toContain("signing in to “tracker” failed: the sign-in was cancelled");
  });

  it("offers Cancel while the browser is open, and Sign out once signed in", async () => {
    await act(() => {
      render(<SignInLine server={server({ signingIn: true })} onChanged={() => {}} />, root);
    });
    await act(async () => {
      root.querySelector<HTMLButtonElement>("[data-role=sign-in-cancel]")?.click();
    });
    expect(cancel).toHaveBeenCalledWith("tracker");
    await act(() => {
      render(
        <SignInLine
          server={server(
            {
              signIn: {
                issuer: "https://auth.example.com",
                resource: "https://mcp.example.com/mcp",
                scopes: ["mcp:tools"],
                signedInAt: Date.now(),
                expiresAt: null,
              },
            },
            { state: "ready" },
          )}
          onChanged={() => {}}
        />,
        root,
      );
    });
    expect(root.querySelector("[data-role=signed-in]")?.textContent).toContain("Signed in with https://auth.example.com");
    expect(root.querySelector("[data-role=signed-in]")?.textContent).toContain("scopes: mcp:tools");
    await act(async () => {
      root.querySelector<HTMLButtonElement>("[data-role=sign-out]")?.click();
    });
    expect(signOut).toHaveBeenCalledWith("tracker");
  });

  it("shows nothing for a local server", async () => {
    const local = server();
    local.config.transport = { type: "stdio", command: "node", args: [], env: {}, cwd: null };
    await act(() => {
      render(<SignInLine server={local} onChanged={() => {}} />, root);
    });
    expect(root.querySelector("[data-role=mcp-sign-in]")).toBeNull();
  });
});
