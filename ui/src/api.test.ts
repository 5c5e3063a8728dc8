import { afterEach, describe, expect, it, vi } from "vitest";
import { BackendUnavailableError, answerApproval, listToolGroups, sendMessage, setChatGroupEnabled } from "./api";
import type { ChatEvent } from "./types";

afterEach(() => {
  delete window.__TAURI_INTERNALS__;
});

function installMock(result: unknown = null) {
  const callbacks = new Map<number, (m: unknown) => void>();
  let next = 1;
  const invoke = vi.fn().mockResolvedValue(result);
  window.__TAURI_INTERNALS__ = {
    invoke,
    transformCallback: (cb: (m: unknown) => void) => {
      const id = next++;
      callbacks.set(id, cb);
      return id;
    },
    unregisterCallback: (id: number) => callbacks.delete(id),
  };
  return { invoke, callbacks };
}

describe("listToolGroups", () => {
  it("invokes list_tool_groups without arguments and returns its result", async () => {
    const result = [{ name: "basic", title: "Basic", description: "", enabled: true, tools: [] }];
    const { invoke } = installMock(result);
    await expect(listToolGroups()).resolves.toEqual(result);
    const [command, args] = invoke.mock.calls[0] ?? [];
    expect(command).toBe("list_tool_groups");
    expect(args ?? {}).toEqual({});
  });

  it("passes the backend's rejection through", async () => {
    window.__TAURI_INTERNALS__ = { invoke: vi.fn().mockRejectedValue("registry poisoned") };
    await expect(listToolGroups()).rejects.toBe("registry poisoned");
  });

  it("fails with a clear error outside the Tauri app", async () => {
    await expect(listToolGroups()).rejects.toBeInstanceOf(BackendUnavailableError);
    await expect(sendMessage(1, "x", [], () => {})).rejects.toBeInstanceOf(BackendUnavailableError);
  });
});

describe("commands", () => {
  it("uses the backend's camelCase argument names", async () => {
    const { invoke } = installMock();
    await answerApproval(4, "id-1", { kind: "execution", decision: { type: "deny", reason: null } });
    expect(invoke).toHaveBeenCalledWith(
      "answer_approval",
      { chat: 4, id: "id-1", decision: { kind: "execution", decision: { type: "deny", reason: null } } },
      undefined,
    );
    await setChatGroupEnabled(4, "shell", null);
    expect(invoke).toHaveBeenLastCalledWith("set_chat_group_enabled", { chat: 4, group: "shell", enabled: null }, undefined);
  });

  it("send_message passes a channel whose messages reach the handler", async () => {
    const { invoke, callbacks } = installMock();
    const seen: ChatEvent[] = [];
    const file = { name: "a.txt", kind: "text" as const, mediaType: "text/plain", data: "hi" };
    await sendMessage(4, "hello", [file], (e) => seen.push(e));
    const [command, args] = invoke.mock.calls[0] ?? [];
    expect(command).toBe("send_message");
    expect(args).toMatchObject({ chat: 4, text: "hello", attachments: [file] });
    const channel = (args as { onEvent: { id: number } }).onEvent;
    callbacks.get(channel.id)?.({ index: 0, message: { type: "textDelta", messageId: 1, text: "hi" } });
    expect(seen).toEqual([{ type: "textDelta", messageId: 1, text: "hi" }]);
  });
});
