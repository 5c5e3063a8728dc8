/**
 * Pure rendering functions: each takes a container and data and rebuilds the container's
 * content with DOM nodes. No network, no globals besides `document`.
 */
import { el } from "./dom";
import type { ExecutionPolicy, ResultPolicy, ToolGroupInfo, ToolInfo } from "./types";

interface PolicyLabel {
  label: string;
  hint: string;
}

const EXECUTION_POLICIES: Record<ExecutionPolicy, PolicyLabel> = {
  auto: { label: "Auto", hint: "Runs without asking" },
  "ask-once": {
    label: "Ask once",
    hint: "Asks once per chat for each distinct set of arguments",
  },
  "ask-always": { label: "Ask always", hint: "Asks before every call" },
  deny: { label: "Deny", hint: "Never runs; hidden from the model" },
};

const RESULT_POLICIES: Record<ResultPolicy, PolicyLabel> = {
  never: { label: "Never", hint: "The model sees the result without review" },
  "on-error": { label: "On error", hint: "You review the result when the call fails" },
  always: { label: "Always", hint: "You review every result before the model sees it" },
};

function lookup<K extends string>(table: Record<K, PolicyLabel>, key: string): PolicyLabel | undefined {
  return Object.prototype.hasOwnProperty.call(table, key) ? table[key as K] : undefined;
}

/** A readable message for anything a rejected promise may carry (Tauri rejects with strings). */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  if (error && typeof error === "object" && "message" in error) {
    const message = (error as { message: unknown }).message;
    if (typeof message === "string") return message;
  }
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

const SVG_NS = "http://www.w3.org/2000/svg";

function svg(tag: string, attrs: Record<string, string>): SVGElement {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  return node;
}

/** The app icon's gate (lintel, tie bar, two posts) on a teal rounded square. */
function brandMark(): SVGElement {
  const mark = svg("svg", { class: "brand-mark", viewBox: "0 0 24 24", "aria-hidden": "true", focusable: "false" });
  mark.append(
    svg("rect", { width: "24", height: "24", rx: "6", fill: "#0f766e" }),
    svg("rect", { x: "5", y: "6", width: "14", height: "2.5", rx: "1", fill: "#fff" }),
    svg("rect", { x: "8", y: "10.5", width: "8", height: "1.75", fill: "#fff" }),
    svg("rect", { x: "7", y: "7", width: "2.5", height: "11", rx: "0.75", fill: "#fff" }),
    svg("rect", { x: "14.5", y: "7", width: "2.5", height: "11", rx: "0.75", fill: "#fff" }),
  );
  return mark;
}

/** Builds the app frame and returns the element the page content goes into. */
export function renderShell(root: HTMLElement): HTMLElement {
  const content = el("div", { className: "content" });
  const sidebar = el("aside", { className: "sidebar", attrs: { "aria-label": "Sidebar" } }, [
    el("div", { className: "brand" }, [
      brandMark(),
      el("span", { className: "brand-name", text: "Tollgate" }),
    ]),
  ]);
  const main = el("main", { className: "main" }, [
    el("header", { className: "page-header" }, [
      el("h1", { className: "page-title", text: "Tool gate" }),
      el("p", {
        className: "page-subtitle",
        text: "Tool groups and the default policies that decide when each tool may run.",
      }),
    ]),
    content,
  ]);
  root.replaceChildren(el("div", { className: "app" }, [sidebar, main]));
  return content;
}

export function renderLoading(container: HTMLElement): void {
  container.setAttribute("aria-busy", "true");
  container.replaceChildren(
    el("div", { className: "state state--loading", attrs: { role: "status" } }, [
      el("span", { className: "spinner", attrs: { "aria-hidden": "true" } }),
      el("span", { text: "Loading tool groups…" }),
    ]),
  );
}

export function renderError(container: HTMLElement, error: unknown): void {
  container.removeAttribute("aria-busy");
  container.replaceChildren(
    el("div", { className: "state state--error", attrs: { role: "alert" } }, [
      el("p", { className: "state-title", text: "Tollgate's backend is not reachable: " + errorMessage(error) }),
    ]),
  );
}

function executionPill(policy: string): HTMLElement {
  const known = lookup(EXECUTION_POLICIES, policy);
  return el("span", {
    className: known ? `pill pill--${policy}` : "pill pill--unknown",
    text: known ? known.label : policy,
    attrs: { "data-policy": policy, title: known ? known.hint : "Unknown policy" },
  });
}

function resultCell(policy: string): HTMLElement {
  const known = lookup(RESULT_POLICIES, policy);
  return el("span", {
    className: "result-policy",
    text: known ? known.label : policy,
    attrs: { "data-policy": policy, title: known ? known.hint : "Unknown policy" },
  });
}

function toolRow(tool: ToolInfo): HTMLTableRowElement {
  return el("tr", { attrs: { "data-tool": tool.name } }, [
    el("td", {}, [
      el("div", { className: "tool-name-cell" }, [
        el("code", { className: "tool-name", text: tool.name }),
        tool.readOnly &&
          el("span", {
            className: "tag tag--readonly",
            text: "read-only",
            attrs: { title: "No side effects; safe to run in parallel" },
          }),
      ]),
    ]),
    el("td", { className: "tool-description", text: tool.description }),
    el("td", {}, [executionPill(tool.executionPolicy)]),
    el("td", {}, [resultCell(tool.resultPolicy)]),
  ]);
}

function toolTable(tools: ToolInfo[]): HTMLElement {
  if (tools.length === 0) {
    return el("p", { className: "muted", text: "This group has no tools." });
  }
  const head = el("thead", {}, [
    el("tr", {}, [
      el("th", { text: "Tool", attrs: { scope: "col" } }),
      el("th", { text: "Description", attrs: { scope: "col" } }),
      el("th", { text: "Runs", attrs: { scope: "col", title: "Execution policy" } }),
      el("th", { text: "Result review", attrs: { scope: "col", title: "Result policy" } }),
    ]),
  ]);
  const cols = el("colgroup", {}, [
    el("col", { className: "col-tool" }),
    el("col", { className: "col-description" }),
    el("col", { className: "col-runs" }),
    el("col", { className: "col-result" }),
  ]);
  const body = el("tbody", {}, tools.map(toolRow));
  return el("div", { className: "table-wrap" }, [el("table", { className: "tools" }, [cols, head, body])]);
}

function groupCard(group: ToolGroupInfo): HTMLElement {
  const count = group.tools.length;
  return el("section", { className: "card", attrs: { "data-group": group.name, "aria-label": group.title } }, [
    el("header", { className: "card-header" }, [
      el("div", { className: "card-heading" }, [
        el("h2", { className: "card-title", text: group.title }),
        el("code", { className: "card-name", text: group.name }),
      ]),
      el("span", {
        className: group.enabled ? "badge badge--on" : "badge badge--off",
        text: group.enabled ? "On in new chats" : "Off in new chats",
      }),
    ]),
    group.description && el("p", { className: "card-description", text: group.description }),
    el("p", { className: "card-meta", text: count === 1 ? "1 tool" : `${count} tools` }),
    toolTable(group.tools),
  ]);
}

export function renderToolGroups(container: HTMLElement, groups: ToolGroupInfo[]): void {
  container.removeAttribute("aria-busy");
  if (groups.length === 0) {
    container.replaceChildren(
      el("div", { className: "state" }, [el("p", { text: "No tool groups are registered." })]),
    );
    return;
  }
  const toolCount = groups.reduce((sum, g) => sum + g.tools.length, 0);
  container.replaceChildren(
    el("p", {
      className: "summary",
      text: `${groups.length} ${groups.length === 1 ? "group" : "groups"} · ${toolCount} ${toolCount === 1 ? "tool" : "tools"}`,
    }),
    el("div", { className: "cards" }, groups.map(groupCard)),
  );
}
