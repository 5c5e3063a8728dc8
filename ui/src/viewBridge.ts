/**
 * The host's side of an MCP Apps view (SEP-1865, F-96): JSON-RPC over `postMessage` with
 * one sandboxed frame. The view asks; this decides what each request may become — a call to
 * its own server's tools (through the chat's gate, in the backend), a read of its server's
 * resources, a message offered to the composer, a link shown before it opens, a new height —
 * and refuses everything else. Nothing reaches the view before it says it is initialized, and
 * a view that floods requests is refused, then stopped.
 */

import type { McpViewOutcome } from "./types";

/** The view protocol's version (`ui/initialize`). */
export const VIEW_PROTOCOL_VERSION = "2026-01-26";

/** What the host does for a view; every answer comes back to the bridge. */
export interface ViewHost {
  /** A `tools/call`: the `CallToolResult`. Rejects when the call could not be made at all. */
  callTool(name: string, args: Record<string, unknown>): Promise<unknown>;
  /** A `resources/read` of the view's server: the `ReadResourceResult`. */
  readResource(uri: string): Promise<unknown>;
  /** A link the view wants opened: resolves true when the user opened it. */
  openLink(url: string): Promise<boolean>;
  /** A message the view wrote for the chat: resolves true when it was offered to the user. */
  message(text: string): Promise<boolean>;
  /** What the view wants the model to know with the next message (replacing what it gave before). */
  updateContext(text: string): void;
  /** The height the view's content needs, in pixels. */
  resize(height: number): void;
  /** A log line from the view (`notifications/message`). */
  log(level: string, text: string): void;
  /** The view is stopped (it flooded the host with requests). */
  stop(reason: "flood"): void;
}

/** What the view is told once it is initialized. */
export interface ViewStart {
  toolInput: unknown;
  /** How the call ended (its `CallToolResult`, or why it has none); `null` while it still runs: the end is told with `finish`. */
  outcome: McpViewOutcome | null;
  hostContext: Record<string, unknown>;
  /** The domains the view's document may reach, as its policy allows them. */
  domains: string[];
}

/** A clock the bridge reads for its rate limit (milliseconds). */
export type Clock = () => number;

/** The rate limit: a bucket of this many requests, refilled at `REFILL_PER_SECOND`. */
export const BURST = 40;
export const REFILL_PER_SECOND = 10;
/** Requests refused for the rate before the view is stopped. */
export const REFUSALS_BEFORE_STOP = 20;
/** Tool calls of one view waiting at once (each may be a card waiting for the user). */
export const CALLS_AT_ONCE = 2;
/** The longest text a view may offer as a message, and the tallest it may be. */
export const MAX_MESSAGE_CHARS = 20_000;
export const MAX_HEIGHT = 4_000;

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
const REFUSED = -32000;

type Id = string | number;

interface Incoming {
  jsonrpc: "2.0";
  id?: Id;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/** An error the view receives as a JSON-RPC error. */
class Refusal extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isIncoming(v: unknown): v is Incoming {
  if (!isObject(v) || v.jsonrpc !== "2.0") return false;
  const id = v.id;
  return id === undefined || typeof id === "string" || typeof id === "number";
}

/** The words of a view's content blocks (only text blocks carry any). */
export function textOf(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .filter((b): b is { type: "text"; text: string } => isObject(b) && b.type === "text" && typeof b.text === "string")
    .map((b) => b.text)
    .join("\n\n");
}

function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (isObject(e) && typeof e.message === "string") return e.message;
  return String(e);
}

export class ViewBridge {
  private initialized = false;
  /** How the call ended, once known; told once, after the input. */
  private outcome: McpViewOutcome | null;
  private told = false;
  private stopped = false;
  private tokens = BURST;
  private refilledAt: number;
  private refusals = 0;
  private callsWaiting = 0;
  private nextId = 1;
  private pending = new Map<Id, (ok: boolean) => void>();

  constructor(
    private readonly post: (message: unknown) => void,
    private readonly host: ViewHost,
    private readonly start: ViewStart,
    private readonly clock: Clock = () => Date.now(),
  ) {
    this.refilledAt = clock();
    this.outcome = start.outcome;
  }

  /** The call the view shows ended: the view is told (now, or once it is initialized). Only the first end counts. */
  finish(outcome: McpViewOutcome): void {
    if (this.outcome !== null) return;
    this.outcome = outcome;
    this.tellOutcome();
  }

  private tellOutcome(): void {
    if (!this.initialized || this.told || this.outcome === null) return;
    this.told = true;
    if (this.outcome.type === "result") this.notify("ui/notifications/tool-result", this.outcome.result);
    else this.notify("ui/notifications/tool-cancelled", { reason: this.outcome.reason });
  }

  /** A message from the view's frame (the caller checked it came from that frame). */
  receive(data: unknown): void {
    if (this.stopped || !isIncoming(data)) return;
    if (data.method === undefined) {
      // An answer to a request of ours (the teardown).
      if (data.id !== undefined) this.pending.get(data.id)?.(data.error === undefined);
      if (data.id !== undefined) this.pending.delete(data.id);
      return;
    }
    if (!this.take()) {
      if (data.id !== undefined) this.fail(data.id, new Refusal(REFUSED, "Too many requests from this view; it is being slowed down."));
      this.refusals += 1;
      if (this.refusals >= REFUSALS_BEFORE_STOP) this.stop();
      return;
    }
    const method = data.method;
    if (data.id === undefined) {
      this.notification(method, data.params);
      return;
    }
    const id = data.id;
    this.request(method, data.params).then(
      (result) => this.answer(id, result),
      (e: unknown) => this.fail(id, e),
    );
  }

  /** Tells an initialized view that the host's context changed (the theme). */
  contextChanged(context: Record<string, unknown>): void {
    this.notify("ui/notifications/host-context-changed", context);
  }

  /** Asks the view to tear down before its frame goes; resolves when it answered or `timeout` ends it. */
  teardown(timeout: Promise<void>): Promise<void> {
    if (this.stopped || !this.initialized) return Promise.resolve();
    const id = `host-${this.nextId++}`;
    const answered = new Promise<void>((resolve) => this.pending.set(id, () => resolve()));
    this.post({ jsonrpc: "2.0", id, method: "ui/resource-teardown", params: {} });
    return Promise.race([answered, timeout]).finally(() => {
      this.pending.delete(id);
      this.stopped = true;
    });
  }

  private stop(): void {
    this.stopped = true;
    this.host.stop("flood");
  }

  /** Takes one request from the bucket, refilled for the time since the last. */
  private take(): boolean {
    const now = this.clock();
    const elapsed = Math.max(0, now - this.refilledAt);
    this.tokens = Math.min(BURST, this.tokens + (elapsed / 1000) * REFILL_PER_SECOND);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  private answer(id: Id, result: unknown): void {
    if (!this.stopped) this.post({ jsonrpc: "2.0", id, result });
  }

  private fail(id: Id, e: unknown): void {
    const code = e instanceof Refusal ? e.code : INTERNAL_ERROR;
    if (!this.stopped) this.post({ jsonrpc: "2.0", id, error: { code, message: errorText(e) } });
  }

  private notify(method: string, params: unknown): void {
    if (this.initialized && !this.stopped) this.post({ jsonrpc: "2.0", method, params });
  }

  private notification(method: string, params: unknown): void {
    switch (method) {
      case "ui/notifications/initialized": {
        if (this.initialized) return;
        this.initialized = true;
        const { toolInput } = this.start;
        this.notify("ui/notifications/tool-input", { arguments: isObject(toolInput) ? toolInput : {} });
        this.tellOutcome();
        return;
      }
      case "ui/notifications/size-changed": {
        const height = isObject(params) ? params.height : undefined;
        if (typeof height === "number" && Number.isFinite(height) && height > 0) {
          this.host.resize(Math.min(MAX_HEIGHT, Math.ceil(height)));
        }
        return;
      }
      case "notifications/message": {
        if (!isObject(params)) return;
        const level = typeof params.level === "string" ? params.level : "info";
        const text = typeof params.data === "string" ? params.data : JSON.stringify(params.data ?? null);
        this.host.log(level, text.slice(0, 2_000));
        return;
      }
      default:
        // Anything else (a teardown the view asks for, list changes) needs nothing from us.
        return;
    }
  }

  private async request(method: string, params: unknown): Promise<unknown> {
    const p = isObject(params) ? params : {};
    switch (method) {
      case "ui/initialize":
        return {
          protocolVersion: VIEW_PROTOCOL_VERSION,
          hostInfo: { name: "Tollgate", version: "0.1.0" },
          hostCapabilities: {
            openLinks: {},
            serverTools: {},
            serverResources: {},
            logging: {},
            message: { text: {} },
            updateModelContext: { text: {}, structuredContent: {} },
            sandbox: { csp: { connectDomains: this.start.domains, resourceDomains: this.start.domains } },
          },
          hostContext: this.start.hostContext,
        };
      case "ping":
        return {};
      case "ui/request-display-mode":
        // Views show inline, under their call: any other mode is refused by answering this one.
        return { mode: "inline" };
      case "tools/call": {
        if (typeof p.name !== "string" || !p.name) throw new Refusal(INVALID_PARAMS, "tools/call needs the tool's name.");
        const args = p.arguments === undefined ? {} : p.arguments;
        if (!isObject(args)) throw new Refusal(INVALID_PARAMS, "tools/call takes its arguments as an object.");
        if (this.callsWaiting >= CALLS_AT_ONCE) {
          throw new Refusal(REFUSED, "Calls from this view are already waiting; try again when they are done.");
        }
        this.callsWaiting += 1;
        try {
          return await this.host.callTool(p.name, args);
        } finally {
          this.callsWaiting -= 1;
        }
      }
      case "resources/read":
        if (typeof p.uri !== "string" || !p.uri) throw new Refusal(INVALID_PARAMS, "resources/read needs a uri.");
        return this.host.readResource(p.uri);
      case "ui/open-link": {
        if (typeof p.url !== "string" || !p.url) throw new Refusal(INVALID_PARAMS, "ui/open-link needs a url.");
        return (await this.host.openLink(p.url)) ? {} : { isError: true };
      }
      case "ui/message": {
        const text = textOf(p.content).trim();
        if (!text) throw new Refusal(INVALID_PARAMS, "ui/message needs text content.");
        if (text.length > MAX_MESSAGE_CHARS) throw new Refusal(INVALID_PARAMS, `A message from a view is at most ${MAX_MESSAGE_CHARS} characters.`);
        return (await this.host.message(text)) ? {} : { isError: true };
      }
      case "ui/update-model-context": {
        const structured = p.structuredContent === undefined ? "" : JSON.stringify(p.structuredContent, null, 2);
        const text = [textOf(p.content).trim(), structured].filter((part) => part).join("\n\n");
        if (text.length > MAX_MESSAGE_CHARS) throw new Refusal(INVALID_PARAMS, `A view's context is at most ${MAX_MESSAGE_CHARS} characters.`);
        this.host.updateContext(text);
        return {};
      }
      default:
        throw new Refusal(METHOD_NOT_FOUND, `Tollgate does not offer ${method.slice(0, 80)} to views.`);
    }
  }
}
