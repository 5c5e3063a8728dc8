/** The form that adds an MCP server or edits one, and how its text fields read. */
import * as api from "../../api";
import { t } from "../../i18n";
import { EXECUTION_POLICIES, executionPolicyKey } from "../../policies";
import type { ExecutionPolicy, McpServerConfig } from "../../types";
import { useAction } from "../hooks";
import { parseHosts } from "../Sandbox";
import { useForm } from "../useForm";
import { SwitchRow } from "./SwitchRow";

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

/** The server form's fields, as typed (lists one a line, pairs "KEY=value" or "Name: value"). */
export interface ServerFields {
  name: string;
  kind: "stdio" | "http";
  command: string;
  args: string;
  env: string;
  url: string;
  headers: string;
  clientId: string;
  /** The OAuth client secret; the stored one never comes back from the engine: "" says one is stored. */
  clientSecret: string;
  metadataUrl: string;
  /** Seconds, as typed. */
  timeout: string;
  policy: ExecutionPolicy | "";
  sandboxed: boolean;
  network: boolean;
  folders: string;
  hosts: string;
  views: boolean;
  shareWorkspace: boolean;
  shareModel: boolean;
}

/** The fields for a server being edited, or for a new one (which starts in the sandbox; an imported or earlier one keeps its setting). */
export function serverFields(initial: McpServerConfig | null): ServerFields {
  const tr = initial?.transport;
  return {
    name: initial?.name ?? "",
    kind: tr?.type ?? "stdio",
    command: tr?.type === "stdio" ? tr.command : "",
    args: tr?.type === "stdio" ? tr.args.join("\n") : "",
    env: tr?.type === "stdio" ? pairsText(tr.env, "=") : "",
    url: tr?.type === "http" ? tr.url : "",
    headers: tr?.type === "http" ? pairsText(tr.headers, ":") : "",
    clientId: initial?.oauthClientId ?? "",
    clientSecret: "",
    metadataUrl: initial?.oauthClientMetadataUrl ?? "",
    timeout: String(initial?.timeoutSecs ?? 60),
    policy: initial?.executionPolicy ?? "",
    sandboxed: initial ? !!initial.sandbox : true,
    network: initial?.sandbox?.network ?? true,
    folders: (initial?.sandbox?.folders ?? []).join("\n"),
    hosts: (initial?.sandbox?.hosts ?? []).join(" "),
    views: initial?.views ?? true,
    shareWorkspace: initial?.shareWorkspace ?? false,
    shareModel: initial?.shareModel ?? false,
  };
}

/** The form that adds a server or edits one; Cancel and a save that works both end it (`onDone`). */
export function ServerForm({ initial, onDone }: { initial: McpServerConfig | null; onDone: () => void }) {
  const tr = initial?.transport;
  const form = useForm(() => serverFields(initial));
  const { set } = form;
  const f = form.values;
  const secretStored = initial?.oauthClientSecret !== undefined && initial.oauthClientSecret !== null;
  const { error, busy, run, setError } = useAction();

  const submit = async () => {
    const secs = Number(f.timeout);
    if (!f.name.trim() || (f.kind === "stdio" ? !f.command.trim() : !f.url.trim())) {
      setError(t("mcp.required"));
      return;
    }
    if (!Number.isInteger(secs) || secs < 1 || secs > 3600) {
      setError(t("mcp.badTimeout"));
      return;
    }
    const config: McpServerConfig = {
      name: f.name.trim(),
      enabled: initial?.enabled ?? true,
      transport:
        f.kind === "stdio"
          ? {
              type: "stdio",
              command: f.command.trim(),
              args: parseArgs(f.args),
              env: parsePairs(f.env, "="),
              cwd: tr?.type === "stdio" ? tr.cwd : null,
            }
          : { type: "http", url: f.url.trim(), headers: parsePairs(f.headers, ":") },
      timeoutSecs: secs,
      executionPolicy: f.policy === "" ? null : f.policy,
      resultPolicy: initial?.resultPolicy ?? null,
      views: f.views,
      shareWorkspace: f.shareWorkspace,
      shareModel: f.shareModel,
      ...(f.kind === "stdio" && f.sandboxed
        ? { sandbox: { network: f.network, folders: parseArgs(f.folders), hosts: f.network ? [] : parseHosts(f.hosts) } }
        : {}),
      ...(f.kind === "http" && f.clientId.trim() ? { oauthClientId: f.clientId.trim() } : {}),
      // Left blank, a stored secret is kept ("" asks the engine to keep it).
      ...(f.kind === "http" && f.clientId.trim() && (f.clientSecret || secretStored) ? { oauthClientSecret: f.clientSecret } : {}),
      ...(f.kind === "http" && f.metadataUrl.trim() ? { oauthClientMetadataUrl: f.metadataUrl.trim() } : {}),
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
          <input class="mono" value={f.name} placeholder="github" onInput={(e) => set("name", e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>{t("mcp.transport")}</span>
          <select value={f.kind} onChange={(e) => set("kind", e.currentTarget.value as "stdio" | "http")}>
            <option value="stdio">{t("mcp.stdio")}</option>
            <option value="http">{t("mcp.http")}</option>
          </select>
        </label>
        {f.kind === "stdio" ? (
          <>
            <label class="field field--wide">
              <span>{t("mcp.command")}</span>
              <input class="mono" value={f.command} placeholder="npx" onInput={(e) => set("command", e.currentTarget.value)} />
            </label>
            <label class="field">
              <span>{t("mcp.args")}</span>
              <textarea
                class="mono"
                rows={3}
                value={f.args}
                placeholder={"-y\n@modelcontextprotocol/server-everything"}
                onInput={(e) => set("args", e.currentTarget.value)}
              />
            </label>
            <label class="field">
              <span>{t("mcp.env")}</span>
              <textarea class="mono" rows={3} value={f.env} placeholder="API_TOKEN=…" onInput={(e) => set("env", e.currentTarget.value)} />
            </label>
            <div class="field field--wide mcp-sandbox" data-role="mcp-sandbox">
              <SwitchRow checked={f.sandboxed} onChange={(on) => set("sandboxed", on)} title={t("mcp.sandbox")} hint={t("mcp.sandboxHint")} />
              {f.sandboxed ? (
                <>
                  <label class="switch-row">
                    <input type="checkbox" class="switch" checked={f.network} onChange={(e) => set("network", e.currentTarget.checked)} />
                    <span>{t("mcp.sandboxNetwork")}</span>
                  </label>
                  {f.network ? null : (
                    <label class="field">
                      <span>{t("mcp.sandboxHosts")}</span>
                      <input
                        type="text"
                        class="mono"
                        data-role="mcp-sandbox-hosts"
                        value={f.hosts}
                        placeholder="api.example.com"
                        onInput={(e) => set("hosts", e.currentTarget.value)}
                      />
                    </label>
                  )}
                  <label class="field">
                    <span>{t("mcp.sandboxFolders")}</span>
                    <textarea
                      class="mono"
                      rows={2}
                      value={f.folders}
                      placeholder="/home/me/notes"
                      onInput={(e) => set("folders", e.currentTarget.value)}
                    />
                  </label>
                </>
              ) : null}
            </div>
          </>
        ) : (
          <>
            <label class="field field--wide">
              <span>{t("mcp.url")}</span>
              <input class="mono" value={f.url} placeholder="https://example.org/mcp" onInput={(e) => set("url", e.currentTarget.value)} />
            </label>
            <label class="field field--wide">
              <span>{t("mcp.headers")}</span>
              <textarea
                class="mono"
                rows={2}
                value={f.headers}
                placeholder="Authorization: Bearer …"
                onInput={(e) => set("headers", e.currentTarget.value)}
              />
            </label>
            <label class="field field--wide">
              <span>{t("mcp.clientId")}</span>
              <input class="mono" value={f.clientId} data-role="mcp-client-id" onInput={(e) => set("clientId", e.currentTarget.value)} />
              <small class="muted">{t("mcp.clientIdHint")}</small>
            </label>
            <label class="field field--wide">
              <span>{t("mcp.clientSecret")}</span>
              <input
                class="mono"
                type="password"
                autocomplete="off"
                value={f.clientSecret}
                disabled={!f.clientId.trim()}
                placeholder={secretStored ? t("mcp.clientSecretStored") : ""}
                data-role="mcp-client-secret"
                onInput={(e) => set("clientSecret", e.currentTarget.value)}
              />
              <small class="muted">{t("mcp.clientSecretHint")}</small>
            </label>
            <label class="field field--wide">
              <span>{t("mcp.clientMetadataUrl")}</span>
              <input
                class="mono"
                type="url"
                value={f.metadataUrl}
                placeholder="https://…/client-metadata.json"
                data-role="mcp-client-metadata-url"
                onInput={(e) => set("metadataUrl", e.currentTarget.value)}
              />
              <small class="muted">{t("mcp.clientMetadataUrlHint")}</small>
            </label>
          </>
        )}
        <label class="field">
          <span>{t("mcp.timeout")}</span>
          <input type="number" min={1} max={3600} value={f.timeout} onInput={(e) => set("timeout", e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>{t("mcp.policy")}</span>
          <select value={f.policy} onChange={(e) => set("policy", e.currentTarget.value as ExecutionPolicy | "")}>
            <option value="">{t("mcp.policyFromHints")}</option>
            {EXECUTION_POLICIES.map((p) => (
              <option key={p} value={p}>
                {t(executionPolicyKey(p))}
              </option>
            ))}
          </select>
        </label>
        <SwitchRow
          wide
          role="mcp-views"
          checked={f.views}
          onChange={(on) => set("views", on)}
          title={t("mcp.views")}
          hint={t("settings.mcpViewsHint")}
        />
        <SwitchRow
          wide
          role="mcp-share-workspace"
          checked={f.shareWorkspace}
          onChange={(on) => set("shareWorkspace", on)}
          title={t("mcp.shareWorkspace")}
          hint={t("mcp.shareWorkspaceHint")}
        />
        <SwitchRow
          wide
          role="mcp-share-model"
          checked={f.shareModel}
          onChange={(on) => set("shareModel", on)}
          title={t("mcp.shareModel")}
          hint={t("mcp.shareModelHint")}
        />
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
