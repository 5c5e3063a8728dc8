import { describe, expect, it, vi } from "vitest";
import { BURST, CALLS_AT_ONCE, REFUSALS_BEFORE_STOP, ViewBridge, type ViewHost, type ViewStart } from "./viewBridge";

const RESULT = { content: [{ type: "text", text: "12:00" }], structuredContent: { time: "12:00" } };
const start: ViewStart = {
  toolInput: { zone: "UTC" },
  outcome: { type: "result", result: RESULT },
  hostContext: { theme: "dark", displayMode: "inline" },
  domains: ["https://api.example.com"],
};

function host(over: Partial<ViewHost> = {}): ViewHost {
  return {
    callTool: vi.fn(async () => ({ content: [{ type: "text", text: "ran" }] })),
    readResource: vi.fn(async () => ({ contents: [] })),
    openLink: vi.fn(async () => true),
    message: vi.fn(async () => true),
    updateContext: vi.fn(),
    resize: vi.fn(),
    log: vi.fn(),
    stop: vi.fn(),
    ...over,
  };
}

/** A bridge and what it posted to the view, with a clock the test moves. */
function setup(h: ViewHost = host(), s: ViewStart = start) {
  const posted: Record<string, unknown>[] = [];
  let now = 0;
  const bridge = new ViewBridge(
    (m) => posted.push(m as Record<string, unknown>),
    h,
    s,
    () => now,
  );
  return {
    bridge,
    posted,
    h,
    advance: (ms: number) => (now += ms),
    /** Sends a request and waits for its answer. */
    ask: async (method: string, params: unknown, id: number | string = Math.random()) => {
      bridge.receive({ jsonrpc: "2.0", id, method, params });
      await vi.waitFor(() => expect(posted.some((m) => m.id === id)).toBe(true));
      return posted.find((m) => m.id === id) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
    },
  };
}

describe("the view's handshake", () => {
  it("answers ui/initialize and sends the input and result only once the view is initialized", async () => {
    const { bridge, posted, ask } = setup();
    const init = await ask("ui/initialize", { protocolVersion: "2026-01-26", appInfo: { name: "v" } }, 1);
    expect(init.result?.protocolVersion).toBe("2026-01-26");
    expect(init.result?.hostContext).toEqual(start.hostContext);
    expect(posted.filter((m) => typeof m.method === "string")).toEqual([]);
    bridge.receive({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
    const sent = posted.filter((m) => typeof m.method === "string").map((m) => m.method);
    expect(sent).toEqual(["ui/notifications/tool-input", "ui/notifications/tool-result"]);
    expect(posted.find((m) => m.method === "ui/notifications/tool-input")?.params).toEqual({ arguments: { zone: "UTC" } });
    expect(posted.find((m) => m.method === "ui/notifications/tool-result")?.params).toEqual(RESULT);
    // A second "initialized" sends nothing again.
    bridge.receive({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
    expect(posted.filter((m) => typeof m.method === "string")).toHaveLength(2);
  });

  it("tells a view whose call has no result why, instead of a result", () => {
    const { bridge, posted } = setup(host(), { ...start, outcome: { type: "cancelled", reason: "The user denied this call." } });
    bridge.receive({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
    expect(posted.map((m) => m.method)).toEqual(["ui/notifications/tool-input", "ui/notifications/tool-cancelled"]);
    expect(posted[1]?.params).toEqual({ reason: "The user denied this call." });
  });

  it("tells a view shown while its call runs only the input, then the end once, when it comes", () => {
    const { bridge, posted } = setup(host(), { ...start, outcome: null });
    bridge.receive({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
    expect(posted.map((m) => m.method)).toEqual(["ui/notifications/tool-input"]);
    bridge.finish({ type: "result", result: RESULT });
    expect(posted.map((m) => m.method)).toEqual(["ui/notifications/tool-input", "ui/notifications/tool-result"]);
    expect(posted[1]?.params).toEqual(RESULT);
    // A later end (a second look at the record) is not told again.
    bridge.finish({ type: "cancelled", reason: "late" });
    expect(posted).toHaveLength(2);
  });

  it("holds an end that comes before the view is initialized until after its input", () => {
    const { bridge, posted } = setup(host(), { ...start, outcome: null });
    bridge.finish({ type: "cancelled", reason: "Stopped by the user." });
    expect(posted).toEqual([]);
    bridge.receive({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
    expect(posted.map((m) => m.method)).toEqual(["ui/notifications/tool-input", "ui/notifications/tool-cancelled"]);
    expect(posted[1]?.params).toEqual({ reason: "Stopped by the user." });
  });

  it("sends the host's context changes only to an initialized view", () => {
    const { bridge, posted } = setup();
    bridge.contextChanged({ theme: "light" });
    expect(posted).toEqual([]);
    bridge.receive({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
    bridge.contextChanged({ theme: "light" });
    expect(posted.at(-1)).toEqual({ jsonrpc: "2.0", method: "ui/notifications/host-context-changed", params: { theme: "light" } });
  });
});

describe("what a view asks for", () => {
  it("passes a tool call to the host and returns its result", async () => {
    const { ask, h } = setup();
    const answer = await ask("tools/call", { name: "get-time", arguments: { zone: "UTC" } });
    expect(h.callTool).toHaveBeenCalledWith("get-time", { zone: "UTC" });
    expect(answer.result).toEqual({ content: [{ type: "text", text: "ran" }] });
  });

  it("returns the backend's refusal as an error with its words", async () => {
    const { ask } = setup(host({ callTool: vi.fn(async () => Promise.reject({ kind: "invalid", message: "may not call" })) }));
    const answer = await ask("tools/call", { name: "other__tool" });
    expect(answer.error).toEqual({ code: -32603, message: "may not call" });
  });

  it("refuses malformed calls without asking the host", async () => {
    const { ask, h } = setup();
    expect((await ask("tools/call", { arguments: {} })).error?.code).toBe(-32602);
    expect((await ask("tools/call", { name: "x", arguments: [1] })).error?.code).toBe(-32602);
    expect(h.callTool).not.toHaveBeenCalled();
  });

  it("lets only a few calls wait at once", async () => {
    let release = () => {};
    const waiting = new Promise<unknown>((resolve) => (release = () => resolve({ content: [] })));
    const h = host({ callTool: vi.fn(() => waiting) });
    const { bridge, ask, posted } = setup(h);
    for (let i = 0; i < CALLS_AT_ONCE; i++) bridge.receive({ jsonrpc: "2.0", id: `w${i}`, method: "tools/call", params: { name: "t" } });
    const refused = await ask("tools/call", { name: "t" }, "over");
    expect(refused.error?.code).toBe(-32000);
    expect(h.callTool).toHaveBeenCalledTimes(CALLS_AT_ONCE);
    release();
    await vi.waitFor(() => expect(posted.filter((m) => String(m.id).startsWith("w") && m.result)).toHaveLength(CALLS_AT_ONCE));
  });

  it("opens links and offers messages through the host, and reports a refusal softly", async () => {
    const h = host({ openLink: vi.fn(async () => false) });
    const { ask } = setup(h);
    expect((await ask("ui/open-link", { url: "https://example.com/x" })).result).toEqual({ isError: true });
    expect(h.openLink).toHaveBeenCalledWith("https://example.com/x");
    const sent = await ask("ui/message", {
      role: "user",
      content: [
        { type: "text", text: "Hello" },
        { type: "image", data: "" },
      ],
    });
    expect(sent.result).toEqual({});
    expect(h.message).toHaveBeenCalledWith("Hello");
    expect((await ask("ui/message", { role: "user", content: [] })).error?.code).toBe(-32602);
  });

  it("passes the context a view gives for the next message to the host, text and structure", async () => {
    const { ask, h } = setup();
    const done = await ask("ui/update-model-context", {
      content: [{ type: "text", text: "Budget: 40% marketing" }],
      structuredContent: { marketing: 0.4 },
    });
    expect(done.result).toEqual({});
    expect(h.updateContext).toHaveBeenCalledWith('Budget: 40% marketing\n\n{\n  "marketing": 0.4\n}');
    const tooLong = await ask("ui/update-model-context", { content: [{ type: "text", text: "x".repeat(20_001) }] });
    expect(tooLong.error?.code).toBe(-32602);
    expect(h.updateContext).toHaveBeenCalledTimes(1);
  });

  it("answers what it does not offer with method-not-found, and keeps views inline", async () => {
    const { ask } = setup();
    expect((await ask("ui/download-file", { contents: [] })).error?.code).toBe(-32601);
    expect((await ask("sampling/createMessage", {})).error?.code).toBe(-32601);
    expect((await ask("ui/request-display-mode", { mode: "fullscreen" })).result).toEqual({ mode: "inline" });
    expect((await ask("ping", {})).result).toEqual({});
  });

  it("applies a size change within bounds and ignores nonsense", () => {
    const { bridge, h } = setup();
    bridge.receive({ jsonrpc: "2.0", method: "ui/notifications/size-changed", params: { width: 300, height: 212.4 } });
    bridge.receive({ jsonrpc: "2.0", method: "ui/notifications/size-changed", params: { height: 1e9 } });
    bridge.receive({ jsonrpc: "2.0", method: "ui/notifications/size-changed", params: { height: "tall" } });
    bridge.receive({ jsonrpc: "2.0", method: "ui/notifications/size-changed", params: { height: -5 } });
    expect(vi.mocked(h.resize).mock.calls).toEqual([[213], [4000]]);
  });

  it("ignores what is not JSON-RPC", () => {
    const { bridge, posted, h } = setup();
    for (const junk of [null, "x", 5, { method: "tools/call" }, { jsonrpc: "2.0", id: {}, method: "ping" }]) bridge.receive(junk);
    expect(posted).toEqual([]);
    expect(h.callTool).not.toHaveBeenCalled();
  });
});

describe("a view that floods the host", () => {
  it("is refused past its burst, then stopped; one that keeps to the rate is not", async () => {
    const h = host();
    const { bridge, posted, advance } = setup(h);
    for (let i = 0; i < BURST; i++) bridge.receive({ jsonrpc: "2.0", id: i, method: "ping" });
    await vi.waitFor(() => expect(posted.filter((m) => m.result)).toHaveLength(BURST));
    bridge.receive({ jsonrpc: "2.0", id: "over", method: "ping" });
    expect(posted.find((m) => m.id === "over")).toMatchObject({ error: { code: -32000 } });
    // A second later there is room again.
    advance(1_000);
    bridge.receive({ jsonrpc: "2.0", id: "later", method: "ping" });
    await vi.waitFor(() => expect(posted.find((m) => m.id === "later")).toMatchObject({ result: {} }));
    expect(h.stop).not.toHaveBeenCalled();
    for (let i = 0; i < BURST + REFUSALS_BEFORE_STOP; i++)
      bridge.receive({ jsonrpc: "2.0", id: `f${i}`, method: "tools/call", params: { name: "t" } });
    expect(h.stop).toHaveBeenCalledWith("flood");
    const count = posted.length;
    bridge.receive({ jsonrpc: "2.0", id: "after", method: "ping" });
    advance(60_000);
    bridge.receive({ jsonrpc: "2.0", id: "after2", method: "ping" });
    expect(posted.length).toBe(count);
  });
});

describe("teardown", () => {
  it("asks an initialized view to tear down and waits for its answer", async () => {
    const { bridge, posted } = setup();
    bridge.receive({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
    let done = false;
    const never = new Promise<void>(() => {});
    const tearing = bridge.teardown(never).then(() => (done = true));
    const request = posted.find((m) => m.method === "ui/resource-teardown");
    expect(request).toBeDefined();
    expect(done).toBe(false);
    bridge.receive({ jsonrpc: "2.0", id: request?.id, result: {} });
    await tearing;
    expect(done).toBe(true);
  });
});
