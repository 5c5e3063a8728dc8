/**
 * What MCP servers offer the composer (F-45): resources to attach (the 🗂 button) and prompts
 * under `/`. A resource becomes an attachment and a prompt fills the composer: the user sees and
 * can change all of it before anything is sent.
 */
import { useRef, useState } from "preact/hooks";
import { t } from "../i18n";
import type { McpPromptView, McpResourceView } from "../types";
import { MCP, mcpPromptsQuery, mcpResourcesQuery, onMcpChanged } from "../queries";
import { useDismiss } from "./hooks";
import { useRefreshOn, useServerState } from "./useServerState";
import { Icon } from "./icons";

/** The resources and prompts of the running servers, read again whenever a server changes. */
export function useMcpCatalog(): { resources: McpResourceView[]; prompts: McpPromptView[] } {
  const resources = useServerState(mcpResourcesQuery, { keepOnChange: true });
  const prompts = useServerState(mcpPromptsQuery, { keepOnChange: true });
  useRefreshOn(onMcpChanged, [MCP]);
  return { resources: resources.data ?? [], prompts: prompts.data ?? [] };
}

/** The prompts whose name or title starts with (or contains) what follows the `/`. */
export function matchingPrompts(prompts: McpPromptView[], typed: string): McpPromptView[] {
  const q = typed.replace(/^\//, "").toLowerCase();
  const score = (p: McpPromptView) => {
    const names = [p.name, p.title ?? ""].map((n) => n.toLowerCase());
    if (names.some((n) => n.startsWith(q))) return 0;
    if (names.some((n) => n.includes(q))) return 1;
    return 2;
  };
  return prompts.filter((p) => score(p) < 2).sort((a, b) => score(a) - score(b));
}

/** The list of prompts shown above the composer while the message is `/…`. */
export function PromptMenu({ prompts, active, onPick }: { prompts: McpPromptView[]; active: number; onPick: (p: McpPromptView) => void }) {
  if (!prompts.length)
    return (
      <div class="prompt-menu muted small" role="status">
        {t("mcp.noPrompts")}
      </div>
    );
  return (
    <ul class="prompt-menu" role="listbox" aria-label={t("mcp.prompts")} data-role="prompt-menu">
      {prompts.map((p, i) => (
        <li
          key={`${p.server}/${p.name}`}
          role="option"
          aria-selected={i === active}
          class={`prompt-item${i === active ? " is-active" : ""}`}
          data-prompt={p.name}
          onMouseDown={(e) => {
            // Keep the focus in the composer.
            e.preventDefault();
            onPick(p);
          }}
        >
          <span class="prompt-name">/{p.name}</span>
          <span class="muted small">
            {p.title ?? p.description ?? ""} · {p.server}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** The arguments of a prompt, asked before it fills the composer. Enter fills, Escape cancels. */
export function PromptForm({
  prompt,
  onFill,
  onCancel,
}: {
  prompt: McpPromptView;
  onFill: (args: Record<string, string>) => void;
  onCancel: () => void;
}) {
  const [values, setValues] = useState<Record<string, string>>({});
  const missing = prompt.arguments.filter((a) => a.required && !(values[a.name] ?? "").trim());
  return (
    <form
      class="prompt-form"
      data-role="prompt-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (missing.length) return;
        const args: Record<string, string> = {};
        for (const [k, v] of Object.entries(values)) if (v.trim()) args[k] = v;
        onFill(args);
      }}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          e.stopPropagation();
          onCancel();
        }
      }}
    >
      <div class="popover-title">
        /{prompt.name} <span class="muted small">· {prompt.server}</span>
      </div>
      {prompt.description ? <p class="muted small">{prompt.description}</p> : null}
      {prompt.arguments.map((a, i) => (
        <label class="field" key={a.name}>
          <span>
            {a.name}
            {a.required ? " *" : ""}
          </span>
          <input
            ref={(el) => {
              if (i === 0 && el && !el.dataset.focused) {
                el.dataset.focused = "1";
                el.focus();
              }
            }}
            data-arg={a.name}
            value={values[a.name] ?? ""}
            placeholder={a.description ?? ""}
            onInput={(e) => setValues({ ...values, [a.name]: e.currentTarget.value })}
          />
        </label>
      ))}
      <div class="row">
        <button type="button" class="btn btn--small" onClick={onCancel}>
          {t("common.cancel")}
        </button>
        <button type="submit" class="btn btn--primary btn--small" disabled={missing.length > 0}>
          {t("mcp.usePrompt")}
        </button>
      </div>
    </form>
  );
}

/** The button that lists the servers' resources; picking one attaches it. */
export function ResourceButton({
  resources,
  disabled,
  onPick,
}: {
  resources: McpResourceView[];
  disabled: boolean;
  onPick: (r: McpResourceView) => void;
}) {
  const [open, setOpen] = useState(false);
  const [filter, setFilter] = useState("");
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, () => setOpen(false), ref);
  if (!resources.length) return null;
  const q = filter.trim().toLowerCase();
  const shown = resources.filter((r) => !q || [r.name, r.title ?? "", r.uri, r.server].some((s) => s.toLowerCase().includes(q)));
  return (
    <div class="popover-anchor composer-resources" ref={ref}>
      <button
        type="button"
        class="icon-btn"
        data-role="attach-resource"
        aria-expanded={open}
        title={t("mcp.attachResource")}
        aria-label={t("mcp.attachResource")}
        disabled={disabled}
        onClick={() => setOpen(!open)}
      >
        <Icon name="database" />
      </button>
      {open ? (
        <div class="popover popover--left popover--up resource-menu" role="dialog" aria-label={t("mcp.attachResource")}>
          <div class="popover-title">{t("mcp.resources")}</div>
          <input
            type="search"
            ref={(el) => el?.focus()}
            value={filter}
            placeholder={t("mcp.filterResources")}
            onInput={(e) => setFilter(e.currentTarget.value)}
          />
          <div class="resource-list" role="menu">
            {shown.map((r) => (
              <button
                key={`${r.server} ${r.uri}`}
                type="button"
                role="menuitem"
                class="menu-item resource-item"
                data-uri={r.uri}
                onClick={() => {
                  setOpen(false);
                  onPick(r);
                }}
              >
                <span>{r.title ?? r.name}</span>
                <span class="muted small mono">
                  {r.uri} · {r.server}
                </span>
              </button>
            ))}
            {!shown.length ? <p class="muted small">{t("mcp.noResources")}</p> : null}
          </div>
        </div>
      ) : null}
    </div>
  );
}
