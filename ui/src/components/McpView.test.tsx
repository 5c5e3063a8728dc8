import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Attachment, McpViewDocument } from "../types";

vi.mock("../api", () => ({
  openMcpView: vi.fn(),
  mcpViewCallTool: vi.fn(() => Promise.resolve({ content: [{ type: "text", text: "ran" }] })),
  mcpViewReadResource: vi.fn(() => Promise.resolve({ contents: [] })),
  openExternal: vi.fn(() => Promise.resolve()),
  resumeMcpViews: vi.fn(() => Promise.resolve()),
  mcpViewOutcome: vi.fn(),
}));

import * as api from "../api";
import { takeOfferedFiles, takeOfferedMessages } from "../drafts";
import { McpView } from "./McpView";
import { finishedCall } from "./testCalls";
import type { CallView } from "../timeline";
import { unmount } from "./testRoot";

const doc: McpViewDocument = {
  url: "tollgate-view://localhost/0123456789abcdef0123456789abcdef",
  server: "clock",
  tool: "get-time",
  csp: "default-src 'none'; sandbox allow-scripts",
  domains: ["https://api.example.com"],
  prefersBorder: null,
  toolInput: { zone: "UTC" },
  outcome: { type: "result", result: { content: [{ type: "text", text: "12:00" }] } },
};

const call = { ...finishedCall("{}", { tool: "clock__get-time", status: "success" }), seq: 4, view: { server: "clock", uri: "ui://clock/app.html" } };

let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
  vi.mocked(api.openMcpView).mockReset().mockResolvedValue(doc);
  vi.mocked(api.mcpViewCallTool).mockClear();
  vi.mocked(api.openExternal).mockClear();
});
afterEach(async () => {
  await unmount(root);
});

/** What a view says once it is ready for its input. */
const INITIALIZED = { jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} };

/** Renders the view of `c` and waits for its frame; returns the frame and what the host posted into it. */
async function shown(c: CallView = call) {
  await act(async () => render(<McpView chat={3} call={c} />, root));
  await vi.waitFor(() => expect(root.querySelector("iframe")).not.toBeNull());
  const frame = root.querySelector("iframe") as HTMLIFrameElement;
  const posted: Record<string, unknown>[] = [];
  const win = frame.contentWindow as Window;
  vi.spyOn(win, "postMessage").mockImplementation((m: unknown) => void posted.push(m as Record<string, unknown>));
  /** A message from the frame, as the window receives it. */
  const fromFrame = (data: unknown, source: Window | null = win) =>
    act(() => {
      window.dispatchEvent(new MessageEvent("message", { data, source }));
    });
  return { frame, posted, fromFrame };
}

describe("a server's view", () => {
  it("shows while its call runs, with the input only, and is told the result in the same frame once the call ends", async () => {
    vi.mocked(api.openMcpView)
      .mockReset()
      .mockResolvedValue({ ...doc, outcome: null });
    const result = { content: [{ type: "text", text: "done" }] };
    vi.mocked(api.mcpViewOutcome).mockReset().mockResolvedValue({ type: "result", result });
    const { frame, posted, fromFrame } = await shown({ ...call, status: "running" });
    await fromFrame(INITIALIZED);
    expect(posted.map((m) => m.method)).toEqual(["ui/notifications/tool-input"]);
    // Its result waits for the user's review, then the user decided (pending until it ends): still no end.
    await act(async () => render(<McpView chat={3} call={{ ...call, status: "awaiting_result_review" }} />, root));
    await act(async () => render(<McpView chat={3} call={{ ...call, status: "pending" }} />, root));
    expect(api.mcpViewOutcome).not.toHaveBeenCalled();
    await act(async () => render(<McpView chat={3} call={call} />, root));
    await vi.waitFor(() => expect(posted.map((m) => m.method)).toEqual(["ui/notifications/tool-input", "ui/notifications/tool-result"]));
    expect(posted[1]?.params).toEqual(result);
    expect(api.mcpViewOutcome).toHaveBeenCalledWith(3, 4);
    expect(root.querySelector("iframe")).toBe(frame);
    expect(api.openMcpView).toHaveBeenCalledTimes(1);
  });

  it("tells a view whose call the chat ended without a recorded end that it was cancelled", async () => {
    vi.mocked(api.openMcpView)
      .mockReset()
      .mockResolvedValue({ ...doc, outcome: null });
    vi.mocked(api.mcpViewOutcome).mockReset().mockResolvedValue(null);
    const { posted, fromFrame } = await shown({ ...call, status: "running" });
    await fromFrame(INITIALIZED);
    await act(async () => render(<McpView chat={3} call={{ ...call, status: "cancelled" }} />, root));
    await vi.waitFor(() => expect(posted.map((m) => m.method)).toEqual(["ui/notifications/tool-input", "ui/notifications/tool-cancelled"]));
    expect(posted[1]?.params).toEqual({ reason: "The call ended without a result." });
  });

  it("while views are paused, says why, loads no frame, and shows again when the user asks", async () => {
    const pause = { kind: "invalid", message: "views are paused", missing: null, invalid: { type: "mcpViewsPaused", servers: ["hog"] } };
    vi.mocked(api.openMcpView).mockReset().mockRejectedValueOnce(pause).mockResolvedValue(doc);
    await act(async () => render(<McpView chat={3} call={call} />, root));
    await vi.waitFor(() => expect(root.querySelector("[data-role=view-paused]")).not.toBeNull());
    expect(root.querySelector("[data-role=view-paused]")?.textContent).toContain("the view of hog was shown");
    expect(root.querySelector("iframe")).toBeNull();
    expect(api.resumeMcpViews).not.toHaveBeenCalled();
    await act(() => (root.querySelector("[data-role=view-resume]") as HTMLButtonElement).click());
    await vi.waitFor(() => expect(root.querySelector("iframe")).not.toBeNull());
    expect(api.resumeMcpViews).toHaveBeenCalledTimes(1);
    expect(api.openMcpView).toHaveBeenCalledTimes(2);
    expect(root.querySelector("[data-role=view-paused]")).toBeNull();
  });

  it("runs in a frame with scripts and nothing else, and says whose it is and where it may reach", async () => {
    const { frame } = await shown();
    expect(api.openMcpView).toHaveBeenCalledWith(3, 4);
    expect(frame.getAttribute("sandbox")).toBe("allow-scripts");
    expect(frame.getAttribute("src")).toBe(doc.url);
    expect(root.textContent).toContain("View of the MCP server clock");
    expect(root.querySelector("[data-role=view-reach]")?.textContent).toContain("https://api.example.com");
  });

  it("answers only its own frame: a message from anywhere else calls nothing", async () => {
    const { posted, fromFrame } = await shown();
    await fromFrame({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get-time" } }, window);
    await fromFrame({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get-time" } }, null);
    expect(api.mcpViewCallTool).not.toHaveBeenCalled();
    await fromFrame({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "get-time", arguments: {} } });
    await vi.waitFor(() => expect(posted.find((m) => m.id === 3)).toBeDefined());
    expect(api.mcpViewCallTool).toHaveBeenCalledWith(3, 4, "get-time", {});
  });

  it("shows a link's whole address first and opens nothing until the user presses Open", async () => {
    const { posted, fromFrame } = await shown();
    await fromFrame({ jsonrpc: "2.0", id: 7, method: "ui/open-link", params: { url: "https://docs.example.com/a?b=c" } });
    const ask = root.querySelector("[data-role=view-link]");
    expect(ask?.textContent).toContain("https://docs.example.com/a?b=c");
    expect(api.openExternal).not.toHaveBeenCalled();
    await act(() => (root.querySelector("[data-role=view-link-cancel]") as HTMLButtonElement).click());
    await vi.waitFor(() => expect(posted.find((m) => m.id === 7)).toMatchObject({ result: { isError: true } }));
    expect(api.openExternal).not.toHaveBeenCalled();
    await fromFrame({ jsonrpc: "2.0", id: 8, method: "ui/open-link", params: { url: "https://docs.example.com/" } });
    await act(() => (root.querySelector("[data-role=view-link-open]") as HTMLButtonElement).click());
    await vi.waitFor(() => expect(posted.find((m) => m.id === 8)).toMatchObject({ result: {} }));
    expect(api.openExternal).toHaveBeenCalledWith("https://docs.example.com/");
  });

  it("never offers to open an address that is not a web or mail one", async () => {
    const { posted, fromFrame } = await shown();
    await fromFrame({ jsonrpc: "2.0", id: 9, method: "ui/open-link", params: { url: "file:///etc/passwd" } });
    expect(root.querySelector("[data-role=view-link-open]")).toBeNull();
    expect(root.querySelector("[data-role=view-link]")?.textContent).toContain("file:///etc/passwd");
    await act(() => (root.querySelector("[data-role=view-link-cancel]") as HTMLButtonElement).click());
    await vi.waitFor(() => expect(posted.find((m) => m.id === 9)).toMatchObject({ result: { isError: true } }));
    expect(api.openExternal).not.toHaveBeenCalled();
  });

  it("puts a message it writes in the composer, labelled with the view, and sends nothing", async () => {
    const { posted, fromFrame } = await shown();
    const offered: unknown[] = [];
    const stop = takeOfferedMessages(3, (list) => offered.push(...list));
    await fromFrame({ jsonrpc: "2.0", id: 5, method: "ui/message", params: { role: "user", content: [{ type: "text", text: "Book it" }] } });
    await vi.waitFor(() => expect(posted.find((m) => m.id === 5)).toMatchObject({ result: {} }));
    expect(offered).toEqual([{ text: "Book it", sources: [{ type: "mcpView", server: "clock" }] }]);
    expect(root.querySelector("[data-role=view-offered]")?.textContent).toContain("message box");
    stop();
  });

  it("attaches the context it gives for the next message in the message box, labelled with the view", async () => {
    const { posted, fromFrame } = await shown();
    const files: Attachment[] = [];
    const stop = takeOfferedFiles(3, (list) => files.push(...list));
    await fromFrame({ jsonrpc: "2.0", id: 6, method: "ui/update-model-context", params: { content: [{ type: "text", text: "Cart: 2 items" }] } });
    await vi.waitFor(() => expect(posted.find((m) => m.id === 6)).toMatchObject({ result: {} }));
    expect(files).toEqual([
      {
        name: "Context from the view of clock.txt",
        kind: "text",
        mediaType: "text/plain",
        data: "Cart: 2 items",
        source: { type: "mcpView", server: "clock" },
      },
    ]);
    expect(root.querySelector("[data-role=view-context]")?.textContent).toContain("message box");
    stop();
  });

  it("says why when the view cannot be shown", async () => {
    vi.mocked(api.openMcpView)
      .mockReset()
      .mockRejectedValue({ kind: "invalid", message: 'Views of the MCP server "clock" are turned off in the settings.' });
    await act(async () => render(<McpView chat={3} call={call} />, root));
    await vi.waitFor(() => expect(root.querySelector("[data-role=view-error]")?.textContent).toContain("turned off"));
    expect(root.querySelector("iframe")).toBeNull();
  });
});
