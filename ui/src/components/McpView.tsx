/**
 * An MCP Apps view under its call (F-96): the server's page in a frame with an origin of its
 * own (`sandbox="allow-scripts"`, never `allow-same-origin`; its document is also served with a
 * `sandbox` policy). The frame has no way to Tollgate but `postMessage`, and what it asks for
 * goes through `ViewBridge`: calls to its server's tools through the gate (their cards appear
 * below it), links shown in full before they open, messages put in the composer for the user
 * to read and send. Its frame is the view's whole world; the line above it says whose it is
 * and where it may reach.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import * as api from "../api";
import { offerFiles, offerMessage } from "../drafts";
import { errorMessage, isCommandError } from "../format";
import { language, t } from "../i18n";
import { linkTarget } from "../links";
import { goesOn, type CallView } from "../timeline";
import type { ChatId, McpViewDocument } from "../types";
import { ViewBridge } from "../viewBridge";

/** The frame's height before the view says what it needs. */
const FIRST_HEIGHT = 120;
/** Why a view's call has no result when the chat ended it without its record saying how. */
const NO_END = "The call ended without a result.";
/** How long a view gets to answer its teardown before its frame goes anyway. */
const TEARDOWN_GRACE_MS = 500;

/** The app's theme as the view's host context says it. */
function theme(): "light" | "dark" {
  return document.documentElement.dataset.theme === "dark" ? "dark" : "light";
}

/** The app's colours and fonts under the spec's names, so a view can look like it belongs. */
function styleVariables(): Record<string, string> {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string) => css.getPropertyValue(name).trim();
  const pairs: [string, string][] = [
    ["--color-background-primary", v("--surface")],
    ["--color-background-secondary", v("--bg")],
    ["--color-text-primary", v("--text")],
    ["--color-text-secondary", v("--muted")],
    ["--color-border-primary", v("--border")],
    ["--color-text-danger", v("--danger")],
    ["--color-text-success", v("--ok")],
    ["--font-sans", v("--font-sans")],
    ["--font-mono", v("--font-mono")],
    ["--border-radius-md", v("--radius")],
  ];
  return Object.fromEntries(pairs.filter(([, value]) => value));
}

function hostContext(width: number): Record<string, unknown> {
  return {
    theme: theme(),
    styles: { variables: styleVariables() },
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    containerDimensions: { width, maxHeight: 4000 },
    locale: language() === "zh-CN" ? "zh-CN" : "en",
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    platform: "desktop",
    userAgent: "Tollgate",
  };
}

/** A link the view asked to open, shown whole until the user answers. */
interface LinkAsk {
  url: string;
  openable: boolean;
  answer: (open: boolean) => void;
}

export function McpView({ chat, call }: { chat: ChatId; call: CallView }) {
  const [doc, setDoc] = useState<McpViewDocument | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Views paused by the window (it stopped responding while these servers' views were shown).
  const [paused, setPaused] = useState<string[] | null>(null);
  // Bumped to open the view again once the user showed views again.
  const [attempt, setAttempt] = useState(0);
  const [stopped, setStopped] = useState(false);
  const [height, setHeight] = useState(FIRST_HEIGHT);
  const [link, setLink] = useState<LinkAsk | null>(null);
  const [offered, setOffered] = useState(false);
  const [contextGiven, setContextGiven] = useState(false);
  const frame = useRef<HTMLIFrameElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const bridge = useRef<ViewBridge | null>(null);
  const server = call.view?.server ?? "";

  // The listener is there before the frame exists: a view says `ui/initialize` as it loads,
  // and a message sent before anyone listens is lost. Only the frame's own messages count.
  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      if (e.source && e.source === frame.current?.contentWindow) bridge.current?.receive(e.data);
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, []);

  useEffect(() => {
    let live = true;
    setDoc(null);
    setError(null);
    setPaused(null);
    api.openMcpView(chat, call.seq).then(
      (d) => {
        if (!live) return;
        const post = (m: unknown) => frame.current?.contentWindow?.postMessage(m, "*");
        bridge.current = new ViewBridge(
          post,
          {
            callTool: (name, args) => api.mcpViewCallTool(chat, call.seq, name, args),
            readResource: (uri) => api.mcpViewReadResource(chat, call.seq, uri),
            openLink: (url) =>
              new Promise<boolean>((resolve) => {
                const target = linkTarget(url, "");
                setLink({
                  url: target.href,
                  openable: target.openable,
                  answer: (open) => {
                    setLink(null);
                    if (!open || !target.openable) return resolve(false);
                    api.openExternal(target.href).then(
                      () => resolve(true),
                      () => resolve(false),
                    );
                  },
                });
              }),
            message: async (text) => {
              offerMessage(chat, { text, sources: [{ type: "mcpView", server: d.server }] });
              setOffered(true);
              return true;
            },
            // Context for the next message: attached in the message box, for the user to see
            // and remove; a newer one replaces it.
            updateContext: (text) => {
              offerFiles(chat, [
                {
                  name: t("view.contextFile", { server: d.server }),
                  kind: "text",
                  mediaType: "text/plain",
                  data: text,
                  source: { type: "mcpView", server: d.server },
                },
              ]);
              setContextGiven(true);
            },
            resize: (h) => setHeight(h),
            log: () => {},
            stop: () => setStopped(true),
          },
          {
            toolInput: d.toolInput,
            outcome: d.outcome,
            hostContext: hostContext(box.current?.clientWidth ?? 600),
            domains: d.domains,
          },
        );
        setDoc(d);
      },
      (e: unknown) => {
        if (!live) return;
        if (isCommandError(e) && e.invalid?.type === "mcpViewsPaused") setPaused(e.invalid.servers);
        else setError(errorMessage(e));
      },
    );
    return () => {
      live = false;
      const leaving = bridge.current;
      bridge.current = null;
      void leaving?.teardown(new Promise((resolve) => setTimeout(resolve, TEARDOWN_GRACE_MS)));
    };
  }, [chat, call.seq, attempt]);

  // Shown while its call ran: once the call ends, the view is told how (its result, or why it
  // has none). A result under review is not an end yet.
  const ended = !goesOn(call.status);
  useEffect(() => {
    if (!doc || doc.outcome !== null || !ended) return;
    let live = true;
    api.mcpViewOutcome(chat, call.seq).then(
      (outcome) => {
        // The record has no end although the chat ended the call (its turn ended, or its task
        // failed before it could record one): the view is told it was cancelled.
        if (live) bridge.current?.finish(outcome ?? { type: "cancelled", reason: NO_END });
      },
      (e: unknown) => {
        if (live) setError(errorMessage(e));
      },
    );
    return () => {
      live = false;
    };
  }, [chat, call.seq, doc, ended]);

  // The app's theme changes: the view is told.
  useEffect(() => {
    const watch = new MutationObserver(() => bridge.current?.contextChanged({ theme: theme(), styles: { variables: styleVariables() } }));
    watch.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    return () => watch.disconnect();
  }, []);

  const bordered = doc?.prefersBorder !== false;
  return (
    <div class="mcp-view" data-role="mcp-view" data-server={server} ref={box}>
      <div class="mcp-view-head muted">
        <span>{t("view.from", { server })}</span>
        {doc ? (
          <span class="mcp-view-reach" data-role="view-reach" title={doc.csp}>
            {doc.domains.length ? t("view.reaches", { list: doc.domains.join(", ") }) : t("view.reachesNothing")}
          </span>
        ) : null}
      </div>
      {paused ? (
        <div class="notice notice--warn" role="status" data-role="view-paused">
          <span>{t("view.paused", { list: paused.join(", ") || server })}</span>
          <button
            type="button"
            class="btn btn--small"
            data-role="view-resume"
            onClick={() =>
              void api.resumeMcpViews().then(
                () => setAttempt((n) => n + 1),
                (e: unknown) => setError(errorMessage(e)),
              )
            }
          >
            {t("view.resume")}
          </button>
        </div>
      ) : error ? (
        <div class="notice notice--error" role="alert" data-role="view-error">
          {t("view.failed", { message: error })}
        </div>
      ) : stopped ? (
        <div class="notice notice--error" role="alert" data-role="view-stopped">
          {t("view.stopped", { server })}
        </div>
      ) : doc ? (
        <iframe
          ref={frame}
          class={`mcp-view-frame${bordered ? " is-bordered" : ""}`}
          title={t("view.title", { server })}
          src={doc.url}
          sandbox="allow-scripts"
          referrerpolicy="no-referrer"
          // The height the view asks for is its content's: the border comes on top.
          style={{ height: `${height + (bordered ? 2 : 0)}px` }}
          data-role="view-frame"
        />
      ) : (
        <div class="mcp-view-loading muted">{t("view.loading")}</div>
      )}
      {offered ? (
        <div class="muted mcp-view-note" role="status" data-role="view-offered">
          {t("view.messageOffered", { server })}
        </div>
      ) : null}
      {contextGiven ? (
        <div class="muted mcp-view-note" role="status" data-role="view-context">
          {t("view.contextGiven", { server })}
        </div>
      ) : null}
      {link ? (
        <div class="mcp-view-link" role="dialog" aria-label={t("view.linkTitle", { server })} data-role="view-link">
          <div>{t(link.openable ? "view.linkAsk" : "view.linkRefused", { server })}</div>
          <code class="mcp-view-link-url">{link.url}</code>
          <div class="mcp-view-link-actions">
            {link.openable ? (
              <button type="button" class="btn btn--primary" data-role="view-link-open" onClick={() => link.answer(true)}>
                {t("view.linkOpen")}
              </button>
            ) : null}
            <button type="button" class="btn" data-role="view-link-cancel" onClick={() => link.answer(false)} autoFocus>
              {t("view.linkCancel")}
            </button>
          </div>
        </div>
      ) : null}
    </div>
  );
}
