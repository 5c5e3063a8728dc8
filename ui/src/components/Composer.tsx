/** Where the user writes: the message box with its attachments, prompts and resources, Send and Stop, and the banner of a failed chat action. */
import { useEffect, useRef, useState } from "preact/hooks";
import * as api from "../api";
import { errorMessage } from "../format";
import { type Key, t } from "../i18n";
import * as session from "../session";
import { type ChatAction, type ChatAlert, type ChatState } from "../timeline";
import { addAttachments, MAX_ATTACHMENTS } from "../files";
import { forgetTyping } from "../typing";
import type { Attachment, ChatId, ChatRow, McpPromptView, McpResourceView, Source } from "../types";
import { Attachments } from "./Attachments";
import { useAutoGrow } from "./hooks";
import { Icon } from "./icons";
import { matchingPrompts, PromptForm, PromptMenu, ResourceButton, useMcpCatalog } from "./McpPicker";
import { takeDraft, takeOfferedFiles, takeOfferedMessages } from "../drafts";
import { sourceText } from "../provenance";

function alertKey(action: ChatAction): Key {
  switch (action) {
    case "send":
      return "chat.sendFailed";
    case "stop":
      return "chat.stopFailed";
    case "retry":
      return "chat.retryFailed";
    case "reload":
      return "chat.reloadFailed";
    case "edit":
      return "chat.editFailed";
    case "regenerate":
      return "chat.regenerateFailed";
    case "branch":
      return "chat.branchFailed";
    case "rerun":
      return "chat.rerunFailed";
  }
}

/** The chat's last failed action (send, Stop, Retry, a reload), right above the composer where the user acted. */
function AlertBanner({ chat, alert }: { chat: ChatId; alert: ChatAlert }) {
  return (
    <div class="notice notice--error chat-alert" role="alert" data-role="chat-alert" data-action={alert.action}>
      <span class="notice-detail">{t(alertKey(alert.action), { message: alert.message })}</span>
      <button type="button" class="icon-btn" title={t("chat.dismiss")} aria-label={t("chat.dismiss")} onClick={() => session.dismissAlert(chat)}>
        ✕
      </button>
    </div>
  );
}

export function Composer({ chat, state }: { chat: ChatRow; state: ChatState }) {
  // A chat started from a summary opens with it in the box, to read, change and send.
  const [text, setText] = useState(() => takeDraft(chat.id) ?? "");
  const [files, setFiles] = useState<Attachment[]>([]);
  const [fileError, setFileError] = useState<string | null>(null);
  const [dropping, setDropping] = useState(false);
  /** Where the composer's text came from besides typing (a filled MCP prompt). */
  const [sources, setSources] = useState<Source[]>([]);
  const area = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const running = state.running;
  const catalog = useMcpCatalog();
  const [promptForm, setPromptForm] = useState<McpPromptView | null>(null);
  const [activePrompt, setActivePrompt] = useState(0);
  const [slashClosed, setSlashClosed] = useState<string | null>(null);
  // `/name` alone in the composer lists the servers' prompts (F-45).
  const slash = !running && !promptForm && /^\/\S*$/.test(text) && slashClosed !== text && catalog.prompts.length > 0;
  const offered = slash ? matchingPrompts(catalog.prompts, text) : [];

  useEffect(() => {
    if (!running) area.current?.focus();
  }, [chat.id, running]);

  useAutoGrow(area, text, 240);

  // A message a server's view wrote (F-96): it fills the box, labelled, and never sends itself.
  useEffect(
    () =>
      takeOfferedMessages(chat.id, (list) => {
        // What the user had written stays: the view's text goes after it.
        for (const m of list) {
          setText((before) => (before.trim() ? `${before.trimEnd()}\n\n${m.text}` : m.text));
          setSources((before) => [...before, ...m.sources.filter((s) => !before.some((b) => JSON.stringify(b) === JSON.stringify(s)))]);
        }
        area.current?.focus();
      }),
    [chat.id],
  );

  // A resource a tool's result linked, attached from its card (SPEC §11).
  const withFilesRef = useRef<(more: Attachment[]) => void>(() => {});
  useEffect(() => takeOfferedFiles(chat.id, (more) => withFilesRef.current(more)), [chat.id]);

  // Picks are read one after another, each onto what the ones before it added: two quick picks
  // both land, and an earlier pick that finishes late can neither drop a later one's files nor
  // clear its error (found by the e2e run on a loaded machine).
  const filesRef = useRef(files);
  filesRef.current = files;
  const reading = useRef<Promise<void>>(Promise.resolve());
  const attach = (list: File[]): Promise<void> => {
    if (!list.length) return reading.current;
    const next = reading.current.then(async () => {
      const added = await addAttachments(filesRef.current, list);
      filesRef.current = added.attachments;
      setFiles(added.attachments);
      setFileError(added.error);
    });
    reading.current = next.catch(() => undefined);
    return next;
  };

  const withFiles = (more: Attachment[]) => {
    // A view's newer context replaces the one it gave before (F-96).
    const viewOf = (f: Attachment) => (f.source?.type === "mcpView" ? f.source.server : null);
    const replaced = (f: Attachment) => viewOf(f) !== null && more.some((m) => m.name === f.name && viewOf(m) === viewOf(f));
    const all = [...filesRef.current.filter((f) => !replaced(f)), ...more];
    filesRef.current = all.slice(0, MAX_ATTACHMENTS);
    setFiles(filesRef.current);
    setFileError(all.length > MAX_ATTACHMENTS ? t("attach.tooMany", { max: MAX_ATTACHMENTS }) : null);
  };
  withFilesRef.current = withFiles;

  /** A prompt fills the composer (its text replaces the `/…`) and brings its files. */
  const fillPrompt = async (p: McpPromptView, args: Record<string, string>) => {
    setPromptForm(null);
    try {
      const filled = await api.getMcpPrompt(p.server, p.name, args);
      setText(filled.text);
      // The text came from the server: the message says so (F-80), unless the user clears it.
      setSources(filled.sources ?? []);
      withFiles(filled.attachments);
    } catch (e) {
      setFileError(errorMessage(e));
    }
    area.current?.focus();
  };

  const pickPrompt = (p: McpPromptView) => {
    if (p.arguments.length) setPromptForm(p);
    else void fillPrompt(p, {});
  };

  const attachResource = async (r: McpResourceView) => {
    try {
      withFiles(await api.readMcpResource(r.server, r.uri));
    } catch (e) {
      setFileError(errorMessage(e));
    }
    area.current?.focus();
  };

  const submit = () => {
    const value = (area.current?.value ?? text).trim();
    if ((!value && !files.length) || running) return;
    const sending = files;
    const from = sources;
    setText("");
    setSources([]);
    // What was typed can no longer be undone in the emptied composer (a failed send puts it back).
    forgetTyping();
    setFiles([]);
    setFileError(null);
    // The banner above says why a message could not be sent; it and its files go back.
    void session.send(chat.id, value, undefined, sending, from).then((sent) => {
      if (!sent) {
        setText(value);
        setFiles(sending);
        setSources(from);
      }
    });
  };

  return (
    <div
      class={`composer-wrap${dropping ? " is-dropping" : ""}`}
      onDragOver={(e) => {
        if (!e.dataTransfer?.types.includes("Files")) return;
        e.preventDefault();
        setDropping(true);
      }}
      onDragLeave={(e) => {
        if (e.currentTarget === e.target) setDropping(false);
      }}
      onDrop={(e) => {
        if (!e.dataTransfer?.files.length) return;
        e.preventDefault();
        setDropping(false);
        void attach([...e.dataTransfer.files]);
      }}
    >
      {state.alert ? <AlertBanner chat={chat.id} alert={state.alert} /> : null}
      {state.approvals.length > 0 ? <p class="composer-waiting">{t("chat.waitingBanner", { count: state.approvals.length })}</p> : null}
      {fileError ? (
        <p class="inline-error composer-file-error" role="alert" data-role="attach-error">
          {fileError}
        </p>
      ) : null}
      {slash ? <PromptMenu prompts={offered} active={Math.min(activePrompt, Math.max(offered.length - 1, 0))} onPick={pickPrompt} /> : null}
      {promptForm ? (
        <PromptForm
          prompt={promptForm}
          onFill={(args) => void fillPrompt(promptForm, args)}
          onCancel={() => {
            setPromptForm(null);
            area.current?.focus();
          }}
        />
      ) : null}
      <div class={`composer${running ? " is-running" : ""}`}>
        {sources.some((s) => s.type === "mcpView") ? (
          <div class="composer-from" data-role="composer-from">
            <span>{t("composer.from", { list: sources.map(sourceText).join(", ") })}</span>
            <button
              type="button"
              class="icon-btn"
              title={t("composer.fromClear")}
              aria-label={t("composer.fromClear")}
              onClick={() => {
                setText("");
                setSources([]);
                area.current?.focus();
              }}
            >
              ✕
            </button>
          </div>
        ) : null}
        {files.length ? (
          <Attachments
            files={files}
            onRemove={(i) => {
              setFiles(files.filter((_, j) => j !== i));
              setFileError(null);
            }}
          />
        ) : null}
        <div class="composer-row">
          <button
            type="button"
            class="icon-btn composer-attach"
            data-role="attach"
            title={t("attach.addTitle")}
            aria-label={t("attach.add")}
            disabled={running}
            onClick={() => picker.current?.click()}
          >
            <Icon name="paperclip" />
          </button>
          <ResourceButton resources={catalog.resources} disabled={running} onPick={(r) => void attachResource(r)} />
          <input
            ref={picker}
            type="file"
            multiple
            hidden
            data-role="attach-input"
            onChange={(e) => {
              const input = e.currentTarget;
              const picked = [...(input.files ?? [])];
              // Emptied at once, so the next pick is only its own files.
              input.value = "";
              void attach(picked);
            }}
          />
          <textarea
            ref={area}
            id="composer"
            rows={1}
            value={text}
            disabled={running}
            placeholder={dropping ? t("attach.drop") : running ? t("chat.running") : t("chat.placeholder")}
            onInput={(e) => {
              setText(e.currentTarget.value);
              setActivePrompt(0);
            }}
            onPaste={(e) => {
              const pasted = [...(e.clipboardData?.files ?? [])];
              if (!pasted.length) return;
              e.preventDefault();
              void attach(pasted);
            }}
            onKeyDown={(e) => {
              if (slash && offered.length) {
                const at = Math.min(activePrompt, offered.length - 1);
                if (e.key === "ArrowDown" || e.key === "ArrowUp") {
                  e.preventDefault();
                  const step = e.key === "ArrowDown" ? 1 : offered.length - 1;
                  setActivePrompt((at + step) % offered.length);
                  return;
                }
                if ((e.key === "Enter" && !e.shiftKey && !e.isComposing) || e.key === "Tab") {
                  e.preventDefault();
                  const chosen = offered[at];
                  if (chosen) pickPrompt(chosen);
                  return;
                }
              }
              if (slash && e.key === "Escape") {
                e.preventDefault();
                setSlashClosed(text);
                return;
              }
              if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
                e.preventDefault();
                submit();
              }
            }}
          />
          {running ? (
            <button type="button" class="btn btn--danger" data-role="stop" onClick={() => void session.stop(chat.id)}>
              ■ {t("chat.stop")}
            </button>
          ) : (
            <button type="button" class="btn btn--primary" disabled={!text.trim() && !files.length} onClick={submit}>
              {t("chat.send")}
            </button>
          )}
        </div>
      </div>
    </div>
  );
}
