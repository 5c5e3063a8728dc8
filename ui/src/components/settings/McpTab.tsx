/** Settings → MCP servers: each server's state and tools, a form to add or edit one, and JSON import. */
import { useState } from "preact/hooks";
import * as api from "../../api";
import { errorMessage } from "../../format";
import { t } from "../../i18n";
import type { McpServerConfig, McpServerView, McpStatus } from "../../types";
import { MCP, mcpReviewQuery, mcpServersQuery, onMcpChanged, sandboxSupportQuery } from "../../queries";
import { invalidate } from "../../serverState";
import { useAction } from "../hooks";
import { useRefreshOn, useServerState } from "../useServerState";
import { Icon } from "../icons";
import { LoadStatus } from "../States";
import { ServerReviewView } from "../ServerReview";
import { ToolChangeView } from "../ToolChange";
import { ServerForm } from "./McpServerForm";
import { SignInLine } from "./McpSignIn";
import type { Confirm } from "./shared";

/** The form's parsers, where the tests (and anything else) found them before the form had a module of its own. */
export { parseArgs, parsePairs } from "./McpServerForm";

function StatusPill({ status }: { status: McpStatus }) {
  const label = {
    disabled: t("mcp.statusDisabled"),
    connecting: t("mcp.statusConnecting"),
    ready: t("mcp.statusReady"),
    failed: t("mcp.statusFailed"),
    needsSignIn: t("mcp.statusNeedsSignIn"),
  }[status.state];
  return (
    <span class={`pill pill--${status.state}`} data-status={status.state}>
      {status.state === "connecting" ? <span class="spinner spinner--small" aria-hidden="true" /> : null}
      {label}
    </span>
  );
}

/** Reads the servers (and what they offer) again after a change made here. */
function load(): Promise<void> {
  return invalidate(MCP);
}

export function McpTab({ onConfirm }: { onConfirm: Confirm }) {
  const loaded = useServerState(mcpServersQuery);
  const support = useServerState(sandboxSupportQuery);
  const noSandbox = Boolean(support.data?.unavailable);
  const servers = loaded.data;
  const [editing, setEditing] = useState<McpServerConfig | "new" | null>(null);
  // Servers connect, fail and restart on their own: read them again whenever one changes.
  useRefreshOn(onMcpChanged, [MCP]);

  return (
    <div class="settings-section">
      <p class="muted">{t("mcp.intro")}</p>
      <LoadStatus load={loaded} />
      {servers && servers.length === 0 && editing === null ? <p class="empty-note">{t("mcp.none")}</p> : null}
      {servers?.map((s) =>
        editing !== null && editing !== "new" && editing.name === s.config.name ? (
          <ServerForm
            key={s.config.name}
            initial={s.config}
            onDone={() => {
              setEditing(null);
              void load();
            }}
          />
        ) : (
          <ServerCard
            key={s.config.name}
            server={s}
            noSandbox={noSandbox}
            onEdit={() => setEditing(s.config)}
            onChanged={() => void load()}
            onRemove={() =>
              onConfirm(t("mcp.confirmRemove", { name: s.config.name }), async () => {
                await api.removeMcpServer(s.config.name);
                await load();
              })
            }
          />
        ),
      )}
      {editing === "new" ? (
        <ServerForm
          initial={null}
          onDone={() => {
            setEditing(null);
            void load();
          }}
        />
      ) : (
        <div class="row">
          <button type="button" class="btn btn--primary" onClick={() => setEditing("new")}>
            {t("mcp.add")}
          </button>
        </div>
      )}
      <ImportServers onImported={() => void load()} />
    </div>
  );
}

function ServerCard(props: { server: McpServerView; noSandbox: boolean; onEdit: () => void; onChanged: () => void; onRemove: () => void }) {
  const { config, state } = props.server;
  const action = useAction();
  const error = action.error;
  const run = async (change: () => Promise<void>) => {
    if (await action.run(change)) props.onChanged();
  };
  const toggle = () => run(() => api.saveMcpServer({ ...config, enabled: !config.enabled }, config.name));
  const secrets = Object.keys(config.transport.type === "stdio" ? config.transport.env : config.transport.headers);
  const summary = config.transport.type === "stdio" ? [config.transport.command, ...config.transport.args].join(" ") : config.transport.url;
  const changed = state.tools.filter((tool) => tool.change);
  return (
    <section class="card mcp-server" data-server={config.name}>
      <div class="card-header">
        <div class="grow">
          <h3 class="card-title">
            {config.name} <StatusPill status={state.status} />
          </h3>
          <div class="muted small">
            {config.transport.type === "stdio" ? t("mcp.stdio") : t("mcp.http")} · <code class="wrap-anywhere">{summary}</code>
            {state.serverName ? ` · ${state.serverName}${state.serverVersion ? ` ${state.serverVersion}` : ""}` : ""}
            {state.protocolVersion ? <span data-role="mcp-protocol"> · {t("mcp.protocol", { version: state.protocolVersion })}</span> : null}
          </div>
          {secrets.length > 0 ? (
            <div class="muted small">
              <Icon name="lock" /> {t("mcp.secretsKept", { names: secrets.join(", ") })}
            </div>
          ) : null}
          {config.transport.type === "stdio" ? <ServerSandboxLine config={config} noSandbox={props.noSandbox} /> : null}
        </div>
        <input
          type="checkbox"
          class="switch"
          checked={config.enabled}
          title={config.enabled ? t("mcp.disable") : t("mcp.enable")}
          aria-label={t("mcp.enabled")}
          onChange={() => void toggle()}
        />
      </div>
      {state.status.state === "failed" ? <p class="inline-error">{state.status.error}</p> : null}
      <SignInLine server={props.server} onChanged={props.onChanged} />
      {error ? <p class="inline-error">{error}</p> : null}
      {state.resources + state.prompts > 0 ? (
        <p class="muted small" data-role="mcp-offers">
          {t("mcp.offers", { resources: state.resources, prompts: state.prompts })}
        </p>
      ) : null}
      {state.instructions ? (
        <details class="mcp-instructions" data-role="mcp-instructions">
          <summary>{t("mcp.instructions")}</summary>
          <p class="small pre-wrap">{state.instructions}</p>
          <p class="muted small">{t("mcp.instructionsSent")}</p>
        </details>
      ) : null}
      <ReviewLine server={props.server} onChanged={props.onChanged} />
      {changed.map((tool) => (tool.change ? <ToolChangeView key={tool.name} change={tool.change} onAccepted={props.onChanged} /> : null))}
      {state.tools.length > 0 ? (
        <details class="mcp-tools">
          <summary>{t("mcp.toolCount", { count: state.tools.length })}</summary>
          <ul>
            {state.tools.map((tool) => (
              <li key={tool.name} data-tool={tool.remoteName}>
                <code>{tool.name}</code>
                {tool.readOnly ? <span class="tag tag--readonly">{t("mcp.readOnly")}</span> : null}
                {tool.destructive ? <span class="tag tag--warn">{t("mcp.destructive")}</span> : null}
                {tool.viewOnly ? (
                  <span class="tag" title={t("mcp.viewOnlyHint")} data-role="view-only">
                    {t("mcp.viewOnly")}
                  </span>
                ) : null}
                {tool.change ? <span class="tag tag--warn">{t("mcp.changed")}</span> : null}
                {tool.description ? <span class="muted small"> — {tool.description}</span> : null}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      <div class="row">
        <button type="button" class="btn" disabled={!config.enabled} onClick={() => void run(() => api.restartMcpServer(config.name))}>
          {t("mcp.restart")}
        </button>
        <button type="button" class="btn btn--ghost" onClick={props.onEdit}>
          {t("mcp.edit")}
        </button>
        <span class="grow" />
        <button type="button" class="btn btn--danger-outline btn--small" onClick={props.onRemove}>
          {t("common.remove")}
        </button>
      </div>
    </section>
  );
}

/**
 * Where a running server's first-sight review stands (SPEC §12): a server not reviewed, or
 * changed since, says so and opens its review; a reviewed one can be read again.
 */
function ReviewLine(props: { server: McpServerView; onChanged: () => void }) {
  const { state } = props.server;
  const [open, setOpen] = useState(false);
  const ready = state.status.state === "ready";
  const pending = state.review !== "confirmed";
  // A review still to be read is loaded with the card, so Review opens it at once.
  const wanted = ready && (pending || open);
  const loaded = useServerState(wanted ? mcpReviewQuery(state.name, state.review) : null);
  if (!ready) return null;
  return (
    <div class={pending ? "review-line review-line--pending" : "review-line"} data-role="review-line" data-review={state.review}>
      {pending ? (
        <p class="small tone-warn">
          <Icon name="unlock" /> {t(state.review === "changed" ? "review.pendingChanged" : "review.pending")}
        </p>
      ) : (
        <p class="muted small">
          <Icon name="lock" /> {t("review.reviewed")}
        </p>
      )}
      {open ? (
        <ServerReviewView
          loaded={loaded}
          onConfirmed={() => {
            setOpen(false);
            props.onChanged();
          }}
        />
      ) : (
        <button
          type="button"
          class={pending ? "btn btn--primary btn--small" : "btn btn--ghost btn--small"}
          onClick={() => setOpen(true)}
          data-role="open-review"
        >
          {t("review.open")}
        </button>
      )}
    </div>
  );
}

/** Whether a local server runs in the sandbox, and where it may write. */
function ServerSandboxLine({ config, noSandbox }: { config: McpServerConfig; noSandbox: boolean }) {
  const sb = config.sandbox;
  if (!sb) {
    return (
      <div class="muted small" data-role="mcp-sandbox-line">
        <Icon name="unlock" /> {t("mcp.sandboxOff")}
      </div>
    );
  }
  if (noSandbox) {
    return (
      <div class="small tone-warn" data-role="mcp-sandbox-line">
        <Icon name="unlock" /> {t("mcp.sandboxMissing")}
      </div>
    );
  }
  const where = sb.folders.length ? t("mcp.sandboxWrites", { folders: sb.folders.join(", ") }) : t("mcp.sandboxWritesNothing");
  return (
    <div class="muted small" data-role="mcp-sandbox-line">
      <Icon name="lock" />{" "}
      {t("mcp.sandboxOn", {
        where,
        network: sb.network
          ? t("sandbox.networkOn")
          : sb.hosts?.length
            ? t("sandbox.networkHosts", { hosts: sb.hosts.join(", ") })
            : t("sandbox.networkOff"),
      })}
    </div>
  );
}

function ImportServers({ onImported }: { onImported: () => void }) {
  const [text, setText] = useState("");
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const submit = async () => {
    try {
      const names = await api.importMcpServers(text);
      setResult({ ok: true, text: t("mcp.imported", { names: names.join(", ") }) });
      setText("");
      onImported();
    } catch (e) {
      setResult({ ok: false, text: errorMessage(e) });
    }
  };
  return (
    <details class="card mcp-import">
      <summary class="card-title">{t("mcp.import")}</summary>
      <p class="muted small">{t("mcp.importHint")}</p>
      <textarea
        class="mono grow"
        rows={6}
        value={text}
        aria-label={t("mcp.import")}
        placeholder={
          '{\n  "mcpServers": {\n    "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"] }\n  }\n}'
        }
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <div class="row">
        <button type="button" class="btn" disabled={!text.trim()} onClick={() => void submit()}>
          {t("mcp.importButton")}
        </button>
        {result ? <span class={result.ok ? "ok-text" : "inline-error"}>{result.text}</span> : null}
      </div>
    </details>
  );
}
