/** A chat's header: its title, workspace, model, prompt, tools, sandbox and export. */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import * as api from "../api";
import { chatTitle } from "../format";
import { t } from "../i18n";
import type { ChatRow, ExportFormat, ProviderConfig } from "../types";
import { chatToolGroupsQuery } from "../queries";
import { invalidate } from "../serverState";
import { useAction, useDismiss } from "./hooks";
import { useServerState } from "./useServerState";
import { Icon } from "./icons";
import { ParamsFields, type ParamsText, paramsText, readParams } from "./params";
import { SandboxSettings } from "./Sandbox";
import { ModelFields } from "./ModelFields";

/** What the chat view is given; the header uses all of it. */
export interface ChatViewProps {
  chat: ChatRow;
  /** The configured providers (null while loading or if they could not be read). */
  providers: ProviderConfig[] | null;
  /** Why the providers could not be read, shown in the model picker. */
  providersError: string | null;
  showLog: boolean;
  onToggleLog: () => void;
  showDemoInvite: boolean;
  onDismissInvite: () => void;
  onOpenProviders: () => void;
  /** Starts a new chat like this one (provider, model, workspace) with `text` in its composer. */
  onCarryOver: (text: string) => void;
  onChatChanged: () => void;
}

export function ChatHeader(props: ChatViewProps) {
  const { chat } = props;
  return (
    <header class="chat-header">
      <div class="chat-title">
        <h1>{chatTitle(chat)}</h1>
        <ModelPicker chat={chat} providers={props.providers} providersError={props.providersError} onChanged={props.onChatChanged} />
      </div>
      <div class="chat-actions">
        <WorkspaceField chat={chat} onChanged={props.onChatChanged} />
        <PromptPopover chat={chat} onChanged={props.onChatChanged} />
        <ToolsPopover chat={chat} onChanged={props.onChatChanged} />
        <ExportMenu chat={chat} />
        <button
          type="button"
          class={`btn btn--ghost${props.showLog ? " is-pressed" : ""}`}
          aria-pressed={props.showLog}
          title={t("chat.log")}
          onClick={props.onToggleLog}
        >
          <Icon name="log" /> <span class="btn-label">{t("chat.log")}</span>
        </button>
      </div>
    </header>
  );
}

function WorkspaceField({ chat, onChanged }: { chat: ChatRow; onChanged: () => void }) {
  const [value, setValue] = useState(chat.workspace ?? "");
  const { error, run } = useAction();
  useEffect(() => setValue(chat.workspace ?? ""), [chat.id, chat.workspace]);
  const save = async (raw: string) => {
    const next = raw.trim() ? raw.trim() : null;
    if (next === (chat.workspace ?? null)) return;
    await api.setChatWorkspace(chat.id, next);
    onChanged();
  };
  const commit = (raw: string) => void run(() => save(raw));
  const pick = () =>
    void run(async () => {
      const folder = await api.pickFolder(t("chat.pickWorkspace"), chat.workspace ?? null);
      if (folder === null) return;
      setValue(folder);
      await save(folder);
    });
  return (
    <div class={`workspace${error ? " has-error" : ""}`} title={error ?? t("chat.workspacePlaceholder")}>
      <button type="button" class="icon-btn workspace-pick" onClick={pick} title={t("chat.pickWorkspace")} aria-label={t("chat.pickWorkspace")}>
        <Icon name="folder" />
      </button>
      <input
        class="mono"
        value={value}
        aria-label={t("chat.workspace")}
        placeholder={t("chat.noWorkspace")}
        onInput={(e) => setValue(e.currentTarget.value)}
        onBlur={(e) => commit(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") (e.currentTarget as HTMLInputElement).blur();
        }}
      />
    </div>
  );
}

/** The chat's provider and model: shown under the title, changed in a small popover. */
function ModelPicker(props: { chat: ChatRow; providers: ProviderConfig[] | null; providersError: string | null; onChanged: () => void }) {
  const { chat, providers, onChanged } = props;
  const [open, setOpen] = useState(false);
  const [providerId, setProviderId] = useState<number | null>(chat.providerId);
  const [model, setModel] = useState(chat.model);
  const saving = useAction();
  const error = props.providersError ?? saving.error;
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, () => setOpen(false), ref);
  useEffect(() => {
    setProviderId(chat.providerId);
    setModel(chat.model);
  }, [chat.id, chat.providerId, chat.model]);

  const current = providers?.find((p) => p.id === chat.providerId) ?? providers?.[0] ?? null;
  const label =
    providers !== null && providers.length === 0
      ? t("providers.kindDemo")
      : `${chat.model || current?.defaultModel || t("chat.defaultModel")}${current ? ` · ${current.name}` : ""}`;

  const openPicker = () => setOpen(!open);

  const save = () =>
    void saving.run(async () => {
      await api.setChatModel(chat.id, providerId, model.trim());
      setOpen(false);
      onChanged();
    });

  return (
    <div class="popover-anchor model-picker" ref={ref}>
      <button type="button" class="link-btn muted small" aria-expanded={open} title={`${label} — ${t("chat.modelTitle")}`} onClick={openPicker}>
        {label} ▾
      </button>
      {open ? (
        <div class="popover popover--left" role="dialog" aria-label={t("chat.modelTitle")}>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              save();
            }}
          >
            <div class="popover-title">{t("chat.modelTitle")}</div>
            {error ? <p class="inline-error">{error}</p> : null}
            {!providers && !error ? <p class="muted">{t("common.loading")}</p> : null}
            {providers ? (
              <>
                <ModelFields
                  providers={providers}
                  providerId={providerId}
                  model={model}
                  listId={`models-${chat.id}`}
                  defaultName={providers[0]?.name ?? t("providers.kindDemo")}
                  onProvider={(id) => {
                    setProviderId(id);
                    setModel("");
                  }}
                  onModel={setModel}
                />
                <div class="row">
                  <button type="submit" class="btn btn--primary btn--small">
                    {t("common.save")}
                  </button>
                </div>
              </>
            ) : null}
          </form>
        </div>
      ) : null}
    </div>
  );
}

/** A header button that opens and closes its popover (Prompt, Tools, Export). */
function PopoverToggle(props: {
  open: boolean;
  onToggle: () => void;
  icon: string;
  label: string;
  title: string;
  role?: string;
  children?: ComponentChildren;
}) {
  return (
    <button
      type="button"
      class={`btn btn--ghost${props.open ? " is-pressed" : ""}`}
      aria-expanded={props.open}
      title={props.title}
      onClick={props.onToggle}
      data-role={props.role}
    >
      <Icon name={props.icon} /> <span class="btn-label">{props.label}</span>
      {props.children}
    </button>
  );
}

/** The chat's system prompt, temperature and longest answer (F-58), in a popover in the header. */
function PromptPopover({ chat, onChanged }: { chat: ChatRow; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, () => setOpen(false), ref);
  const [prompt, setPrompt] = useState(chat.systemPrompt);
  const [fields, setFields] = useState<ParamsText>(paramsText(chat.params));
  const { error, busy, run, setError } = useAction();
  useEffect(() => {
    if (!open) return;
    setPrompt(chat.systemPrompt);
    setFields(paramsText(chat.params));
    setError(null);
  }, [open, chat.id]);
  const custom = chat.systemPrompt.trim() !== "" || chat.params.temperature != null || chat.params.maxTokens != null;

  const save = async () => {
    const read = readParams(fields);
    if ("error" in read) {
      setError(t(read.error));
      return;
    }
    if (
      await run(async () => {
        await api.setChatPrompt(chat.id, prompt, read.params);
        onChanged();
      })
    ) {
      setOpen(false);
    }
  };

  return (
    <div class="popover-anchor" ref={ref}>
      <PopoverToggle
        open={open}
        onToggle={() => setOpen(!open)}
        icon="pencil"
        label={t("chat.prompt")}
        title={t("chat.promptTitle")}
        role="chat-prompt"
      >
        {custom ? <span class="dot dot--accent" aria-label={t("chat.promptCustom")} /> : null}
      </PopoverToggle>
      {open ? (
        <form
          class="popover popover--wide"
          aria-label={t("chat.promptTitle")}
          data-role="chat-prompt-form"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <div class="popover-title">{t("chat.promptTitle")}</div>
          <label class="field">
            <span>{t("chat.systemPrompt")}</span>
            <textarea
              rows={5}
              value={prompt}
              placeholder={t("chat.systemPromptPlaceholder")}
              onInput={(e) => setPrompt(e.currentTarget.value)}
              data-role="system-prompt"
            />
          </label>
          <div class="form-grid form-grid--tight">
            <ParamsFields value={fields} onChange={setFields} />
          </div>
          <small class="muted">{t("chat.promptHint")}</small>
          {error ? <p class="inline-error">{error}</p> : null}
          <div class="row row--end">
            <button type="button" class="btn btn--ghost" onClick={() => setOpen(false)}>
              {t("common.cancel")}
            </button>
            <button type="submit" class="btn btn--primary" disabled={busy}>
              {t("common.save")}
            </button>
          </div>
        </form>
      ) : null}
    </div>
  );
}

function ToolsPopover({ chat, onChanged }: { chat: ChatRow; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, () => setOpen(false), ref);
  const overrides = useRef<Record<string, boolean>>({});
  // Read each time the popover opens: the tools change with settings and MCP servers.
  const loaded = useServerState(open ? chatToolGroupsQuery(chat.id) : null);
  const groups = loaded.data;
  const saving = useAction();
  const error = loaded.error ?? saving.error;

  useEffect(() => {
    overrides.current = { ...chat.toolOverrides.groups };
  }, [chat.id, chat.toolOverrides]);

  const setEnabled = (name: string, enabled: boolean | null) =>
    void saving.run(async () => {
      if (enabled === null) delete overrides.current[name];
      else overrides.current[name] = enabled;
      await api.setChatGroupEnabled(chat.id, name, enabled);
      await invalidate(chatToolGroupsQuery(chat.id).key);
    });

  return (
    <div class="popover-anchor" ref={ref}>
      <PopoverToggle open={open} onToggle={() => setOpen(!open)} icon="tools" label={t("chat.tools")} title={t("chat.toolsTitle")} />
      {open ? (
        <div class="popover" role="dialog" aria-label={t("chat.toolsTitle")}>
          <div class="popover-title">{t("chat.toolsTitle")}</div>
          <p class="muted small">{t("chat.toolsHint")}</p>
          {error ? <p class="inline-error">{error}</p> : null}
          {!groups && !error ? <p class="muted">{t("common.loading")}</p> : null}
          {groups?.map((g) => (
            <div class="popover-row" key={g.name}>
              <label class="switch-row">
                <input type="checkbox" class="switch" checked={g.enabled} onChange={(e) => setEnabled(g.name, e.currentTarget.checked)} />
                <span>
                  <strong>{g.title}</strong>
                  <small class="muted block">
                    {g.tools.length} · {g.description}
                  </small>
                </span>
              </label>
              {g.name in overrides.current ? (
                <button type="button" class="link-btn" onClick={() => setEnabled(g.name, null)}>
                  {t("chat.toolsInherit")}
                </button>
              ) : null}
            </div>
          ))}
          <SandboxSettings chat={chat} onChanged={onChanged} />
        </div>
      ) : null}
    </div>
  );
}

function ExportMenu({ chat }: { chat: ChatRow }) {
  const [open, setOpen] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const { error, run: runAction } = useAction();
  const ref = useRef<HTMLDivElement>(null);
  useDismiss(open, () => setOpen(false), ref);
  useEffect(() => {
    if (saved === null) return;
    const timer = setTimeout(() => setSaved(null), 6000);
    return () => clearTimeout(timer);
  }, [saved]);
  const run = (format: ExportFormat) => {
    setOpen(false);
    setSaved(null);
    return runAction(async () => {
      const path = await api.saveChatExport(chat.id, format);
      if (path !== null) setSaved(path);
    });
  };
  return (
    <div class="popover-anchor" ref={ref}>
      <PopoverToggle open={open} onToggle={() => setOpen(!open)} icon="download" label={t("chat.export")} title={error ?? t("chat.export")}>
        {error ? <span class="dot dot--error" /> : null}
      </PopoverToggle>
      {saved !== null || error !== null ? (
        <div class={`export-status ${error !== null ? "inline-error" : "ok-text"}`} role="status" data-role="export-status">
          {error !== null ? t("chat.exportFailed", { message: error }) : t("chat.exportSaved", { path: saved ?? "" })}
        </div>
      ) : null}
      {open ? (
        <div class="popover popover--menu" role="menu">
          <button type="button" role="menuitem" class="menu-item" onClick={() => void run("markdown")}>
            {t("chat.exportMarkdown")}
          </button>
          <button type="button" role="menuitem" class="menu-item" onClick={() => void run("json")}>
            {t("chat.exportJson")}
          </button>
        </div>
      ) : null}
    </div>
  );
}
