/** Settings → MCP servers: each server's state and tools, a form to add or edit one, and JSON import. */
import { useEffect, useState } from "preact/hooks";
import * as api from "../../api";
import { errorMessage } from "../../format";
import { t } from "../../i18n";
import { EXECUTION_POLICIES, executionPolicyKey } from "../../policies";
import type { ExecutionPolicy, McpServerConfig, McpServerView, McpStatus } from "../../types";
import { useAction, useLoad } from "../hooks";
import { Icon } from "../icons";
import { parseHosts } from "../Sandbox";
import { LoadStatus } from "../States";
import { ServerReviewView } from "../ServerReview";
import { ToolChangeView } from "../ToolChange";
import { SignInLine } from "./McpSignIn";
import type { Confirm } from "./shared";

/** "KEY=value" lines ⇄ a map. Blank values mean "keep the stored secret". */
export function parsePairs(text: string, separator: "=" | ":"): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.indexOf(separator);
    const key = (at < 0 ? line : line.slice(0, at)).trim();
    if (key) out[key] = at < 0 ? "" : line.slice(at + 1).trim();
  }
  return out;
}

function pairsText(map: Record<string, string>, separator: "=" | ":"): string {
  return Object.keys(map)
    .map((k) => `${k}${separator}${separator === ":" ? " " : ""}${map[k] ?? ""}`)
    .join("\n");
}

/** Arguments one per line, so paths with spaces need no quoting. */
export function parseArgs(text: string): string[] {
  return text
    .split("\n")
    .map((a) => a.trim())
    .filter((a) => a.length > 0);
}

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

export function McpTab({ onConfirm }: { onConfirm: Confirm }) {
  const loaded = useLoad(() => api.listMcpServers(), []);
  const support = useLoad(() => api.sandboxSupport(), []);
  const noSandbox = Boolean(support.data?.unavailable);
  const servers = loaded.data;
  const load = loaded.reload;
  const [editing, setEditing] = useState<McpServerConfig | "new" | null>(null);
  // Servers connect, fail and restart on their own: read them again whenever one changes.
  useEffect(() => {
    let unlisten: (() => void) | null = null;
    let gone = false;
    void api
      .onMcpChanged(() => void load())
      .then((u) => {
        if (gone) u();
        else unlisten = u;
      });
    return () => {
      gone = true;
      unlisten?.();
    };
  }, [load]);

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
  const loaded = useLoad(wanted ? () => api.mcpServerReview(state.name) : null, [state.name, state.review, wanted]);
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

function ServerForm({ initial, onDone }: { initial: McpServerConfig | null; onDone: () => void }) {
  const tr = initial?.transport;
  const [name, setName] = useState(initial?.name ?? "");
  const [kind, setKind] = useState<"stdio" | "http">(tr?.type ?? "stdio");
  const [command, setCommand] = useState(tr?.type === "stdio" ? tr.command : "");
  const [args, setArgs] = useState(tr?.type === "stdio" ? tr.args.join("\n") : "");
  const [env, setEnv] = useState(tr?.type === "stdio" ? pairsText(tr.env, "=") : "");
  const [url, setUrl] = useState(tr?.type === "http" ? tr.url : "");
  const [headers, setHeaders] = useState(tr?.type === "http" ? pairsText(tr.headers, ":") : "");
  const [clientId, setClientId] = useState(initial?.oauthClientId ?? "");
  // The secret itself never comes back from the engine: "" says one is stored.
  const [clientSecret, setClientSecret] = useState("");
  const secretStored = initial?.oauthClientSecret !== undefined && initial.oauthClientSecret !== null;
  const [metadataUrl, setMetadataUrl] = useState(initial?.oauthClientMetadataUrl ?? "");
  const [timeout, setTimeoutSecs] = useState(String(initial?.timeoutSecs ?? 60));
  const [policy, setPolicy] = useState<ExecutionPolicy | "">(initial?.executionPolicy ?? "");
  // A server added here starts in the sandbox; an imported or earlier one keeps its setting.
  const [sandboxed, setSandboxed] = useState(initial ? !!initial.sandbox : true);
  const [network, setNetwork] = useState(initial?.sandbox?.network ?? true);
  const [folders, setFolders] = useState((initial?.sandbox?.folders ?? []).join("\n"));
  const [hosts, setHosts] = useState((initial?.sandbox?.hosts ?? []).join(" "));
  const [views, setViews] = useState(initial?.views ?? true);
  const { error, busy, run, setError } = useAction();

  const submit = async () => {
    const secs = Number(timeout);
    if (!name.trim() || (kind === "stdio" ? !command.trim() : !url.trim())) {
      setError(t("mcp.required"));
      return;
    }
    if (!Number.isInteger(secs) || secs < 1 || secs > 3600) {
      setError(t("mcp.badTimeout"));
      return;
    }
    const config: McpServerConfig = {
      name: name.trim(),
      enabled: initial?.enabled ?? true,
      transport:
        kind === "stdio"
          ? { type: "stdio", command: command.trim(), args: parseArgs(args), env: parsePairs(env, "="), cwd: tr?.type === "stdio" ? tr.cwd : null }
          : { type: "http", url: url.trim(), headers: parsePairs(headers, ":") },
      timeoutSecs: secs,
      executionPolicy: policy === "" ? null : policy,
      resultPolicy: initial?.resultPolicy ?? null,
      views,
      ...(kind === "stdio" && sandboxed ? { sandbox: { network, folders: parseArgs(folders), hosts: network ? [] : parseHosts(hosts) } } : {}),
      ...(kind === "http" && clientId.trim() ? { oauthClientId: clientId.trim() } : {}),
      // Left blank, a stored secret is kept ("" asks the engine to keep it).
      ...(kind === "http" && clientId.trim() && (clientSecret || secretStored) ? { oauthClientSecret: clientSecret } : {}),
      ...(kind === "http" && metadataUrl.trim() ? { oauthClientMetadataUrl: metadataUrl.trim() } : {}),
    };
    if (await run(() => api.saveMcpServer(config, initial?.name ?? null))) onDone();
  };

  return (
    <form
      class="card mcp-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h3 class="card-title">{initial ? t("mcp.editTitle", { name: initial.name }) : t("mcp.add")}</h3>
      <div class="form-grid">
        <label class="field">
          <span>{t("mcp.name")}</span>
          <input class="mono" value={name} placeholder="github" onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>{t("mcp.transport")}</span>
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value as "stdio" | "http")}>
            <option value="stdio">{t("mcp.stdio")}</option>
            <option value="http">{t("mcp.http")}</option>
          </select>
        </label>
        {kind === "stdio" ? (
          <>
            <label class="field field--wide">
              <span>{t("mcp.command")}</span>
              <input class="mono" value={command} placeholder="npx" onInput={(e) => setCommand(e.currentTarget.value)} />
            </label>
            <label class="field">
              <span>{t("mcp.args")}</span>
              <textarea
                class="mono"
                rows={3}
                value={args}
                placeholder={"-y\n@modelcontextprotocol/server-everything"}
                onInput={(e) => setArgs(e.currentTarget.value)}
              />
            </label>
            <label class="field">
              <span>{t("mcp.env")}</span>
              <textarea class="mono" rows={3} value={env} placeholder="API_TOKEN=…" onInput={(e) => setEnv(e.currentTarget.value)} />
            </label>
            <div class="field field--wide mcp-sandbox" data-role="mcp-sandbox">
              <label class="switch-row">
                <input type="checkbox" class="switch" checked={sandboxed} onChange={(e) => setSandboxed(e.currentTarget.checked)} />
                <span>
                  <strong>{t("mcp.sandbox")}</strong>
                  <small class="muted block">{t("mcp.sandboxHint")}</small>
                </span>
              </label>
              {sandboxed ? (
                <>
                  <label class="switch-row">
                    <input type="checkbox" class="switch" checked={network} onChange={(e) => setNetwork(e.currentTarget.checked)} />
                    <span>{t("mcp.sandboxNetwork")}</span>
                  </label>
                  {network ? null : (
                    <label class="field">
                      <span>{t("mcp.sandboxHosts")}</span>
                      <input
                        type="text"
                        class="mono"
                        data-role="mcp-sandbox-hosts"
                        value={hosts}
                        placeholder="api.example.com"
                        onInput={(e) => setHosts(e.currentTarget.value)}
                      />
                    </label>
                  )}
                  <label class="field">
                    <span>{t("mcp.sandboxFolders")}</span>
                    <textarea class="mono" rows={2} value={folders} placeholder="/home/me/notes" onInput={(e) => setFolders(e.currentTarget.value)} />
                  </label>
                </>
              ) : null}
            </div>
          </>
        ) : (
          <>
            <label class="field field--wide">
              <span>{t("mcp.url")}</span>
              <input class="mono" value={url} placeholder="https://example.org/mcp" onInput={(e) => setUrl(e.currentTarget.value)} />
            </label>
            <label class="field field--wide">
              <span>{t("mcp.headers")}</span>
              <textarea
                class="mono"
                rows={2}
                value={headers}
                placeholder="Authorization: Bearer …"
                onInput={(e) => setHeaders(e.currentTarget.value)}
              />
            </label>
            <label class="field field--wide">
              <span>{t("mcp.clientId")}</span>
              <input class="mono" value={clientId} data-role="mcp-client-id" onInput={(e) => setClientId(e.currentTarget.value)} />
              <small class="muted">{t("mcp.clientIdHint")}</small>
            </label>
            <label class="field field--wide">
              <span>{t("mcp.clientSecret")}</span>
              <input
                class="mono"
                type="password"
                autocomplete="off"
                value={clientSecret}
                disabled={!clientId.trim()}
                placeholder={secretStored ? t("mcp.clientSecretStored") : ""}
                data-role="mcp-client-secret"
                onInput={(e) => setClientSecret(e.currentTarget.value)}
              />
              <small class="muted">{t("mcp.clientSecretHint")}</small>
            </label>
            <label class="field field--wide">
              <span>{t("mcp.clientMetadataUrl")}</span>
              <input
                class="mono"
                type="url"
                value={metadataUrl}
                placeholder="https://…/client-metadata.json"
                data-role="mcp-client-metadata-url"
                onInput={(e) => setMetadataUrl(e.currentTarget.value)}
              />
              <small class="muted">{t("mcp.clientMetadataUrlHint")}</small>
            </label>
          </>
        )}
        <label class="field">
          <span>{t("mcp.timeout")}</span>
          <input type="number" min={1} max={3600} value={timeout} onInput={(e) => setTimeoutSecs(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>{t("mcp.policy")}</span>
          <select value={policy} onChange={(e) => setPolicy(e.currentTarget.value as ExecutionPolicy | "")}>
            <option value="">{t("mcp.policyFromHints")}</option>
            {EXECUTION_POLICIES.map((p) => (
              <option key={p} value={p}>
                {t(executionPolicyKey(p))}
              </option>
            ))}
          </select>
        </label>
        <label class="switch-row field--wide">
          <input type="checkbox" class="switch" data-role="mcp-views" checked={views} onChange={(e) => setViews(e.currentTarget.checked)} />
          <span>
            <strong>{t("mcp.views")}</strong>
            <small class="muted block">{t("settings.mcpViewsHint")}</small>
          </span>
        </label>
      </div>
      <p class="muted small">{initial ? t("mcp.secretsHintEdit") : t("mcp.secretsHint")}</p>
      {error ? <p class="inline-error">{error}</p> : null}
      <div class="row">
        <button type="submit" class="btn btn--primary" disabled={busy}>
          {initial ? t("common.save") : t("mcp.add")}
        </button>
        <button type="button" class="btn btn--ghost" onClick={onDone}>
          {t("common.cancel")}
        </button>
      </div>
    </form>
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
