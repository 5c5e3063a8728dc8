import { afterEach, describe, expect, it, vi } from "vitest";
import { BackendUnavailableError, listToolGroups } from "./api";

afterEach(() => {
  delete window.__TAURI_INTERNALS__;
});

describe("listToolGroups", () => {
  it("invokes list_tool_groups without arguments and returns its result", async () => {
    const result = [{ name: "basic", title: "Basic", description: "", enabled: true, tools: [] }];
    const invoke = vi.fn().mockResolvedValue(result);
    window.__TAURI_INTERNALS__ = { invoke };

    await expect(listToolGroups()).resolves.toEqual(result);
    expect(invoke).toHaveBeenCalledTimes(1);
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
    await expect(listToolGroups()).rejects.toThrow(/Tauri runtime is not present/);
  });
});
