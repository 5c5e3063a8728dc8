/** Model text as sanitised markdown (rendered block by block while it streams), its Copy button and the dialog that shows a link's target before it opens. */
import { memo } from "preact/compat";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import * as api from "../api";
import { t } from "../i18n";
import { type LinkTarget, linkTarget } from "../links";
import { type MarkdownBlocks, markdownReadyNow, renderBlocks, renderMarkdownCached } from "../markdown";
import { useAction } from "./hooks";
import { Icon } from "./icons";

/**
 * Rendered markdown. While `streaming`, the text is rendered block by block and only the block
 * still being written is rendered again as text arrives (see `renderBlocks`), and the blocks stay
 * when it finishes; a text that was never streamed here is rendered whole.
 */
export function Markdown({ text, streaming = false }: { text: string; streaming?: boolean | undefined }) {
  const blocks = useRef<MarkdownBlocks | undefined>(undefined);
  // A text rendered whole waits for a frame with room for it (`markdownReadyNow`); until then
  // it shows as plain text.
  const whole = !streaming && blocks.current === undefined;
  const [waiting, setWaiting] = useState(() => whole && !markdownReadyNow(text));
  useEffect(() => {
    if (!waiting) return;
    let frame = requestAnimationFrame(function retry() {
      if (markdownReadyNow(text)) setWaiting(false);
      else frame = requestAnimationFrame(retry);
    });
    return () => cancelAnimationFrame(frame);
  }, [waiting, text]);
  const parts = useMemo(() => {
    if (waiting) return [];
    // An answer that was streamed here keeps its blocks when it finishes (rendering 50,000
    // characters whole at that moment would stall the window); others render whole, once.
    if (whole) return [renderMarkdownCached(text)];
    blocks.current = renderBlocks(text, blocks.current);
    return [...blocks.current.sealed, blocks.current.tail];
  }, [text, streaming, waiting, whole]);
  const [asking, setAsking] = useState<LinkTarget | null>(null);
  const opening = useAction();
  const open = (target: LinkTarget) => void opening.run(() => api.openExternal(target.href));
  if (waiting) return <div class="markdown markdown--waiting">{text}</div>;
  return (
    <>
      <div
        class="markdown"
        onClick={(e) => {
          const copy = (e.target as HTMLElement).closest<HTMLButtonElement>(".copy-code");
          if (copy) {
            const code = copy.parentElement?.querySelector("code")?.textContent ?? "";
            void copyWithFeedback(code, copy);
            return;
          }
          // A link never navigates the app window: it opens in the system browser, after
          // showing its full target when its text reads otherwise (F-59).
          const a = (e.target as HTMLElement).closest("a");
          if (!a) return;
          e.preventDefault();
          const target = linkTarget(a.getAttribute("href") ?? "", a.textContent ?? "");
          if (target.openable && !target.differs) open(target);
          else setAsking(target);
        }}
      >
        {parts.map((html, i) => (
          <MarkdownBlock key={i} html={html} />
        ))}
      </div>
      {opening.error ? <p class="inline-error">{t("chat.linkFailed", { message: opening.error })}</p> : null}
      {asking ? (
        <LinkDialog
          target={asking}
          onClose={() => setAsking(null)}
          onOpen={() => {
            setAsking(null);
            open(asking);
          }}
        />
      ) : null}
    </>
  );
}

/**
 * One block of rendered markdown, drawn again only when its HTML changes (a finished block of a
 * streamed answer never does).
 */
const MarkdownBlock = memo(function MarkdownBlock({ html }: { html: string }) {
  const box = useRef<HTMLDivElement>(null);
  // A copy button on every code block. Made here with DOM calls, never from the model's HTML
  // (which may not contain buttons at all: DOMPurify removes them).
  useLayoutEffect(() => {
    for (const pre of box.current?.querySelectorAll("pre") ?? []) {
      if (pre.querySelector(":scope > .copy-code")) continue;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "copy-code";
      button.dataset.role = "copy-code";
      button.textContent = t("chat.copy");
      button.setAttribute("aria-label", t("chat.copyCode"));
      pre.append(button);
    }
  }, [html]);
  // Sanitised by renderMarkdown / renderBlocks (DOMPurify); raw HTML from the model is escaped.
  return <div ref={box} class="md-block" dangerouslySetInnerHTML={{ __html: html }} />;
});

/** Copies `text` and says so on `button` for a moment (or that it failed). */
async function copyWithFeedback(text: string, button: HTMLButtonElement): Promise<void> {
  let word: string;
  try {
    await api.copyText(text);
    word = t("chat.copied");
  } catch {
    word = t("chat.copyFailed");
  }
  button.textContent = word;
  setTimeout(() => {
    button.textContent = t("chat.copy");
  }, 1500);
}

/** Copies a whole message as its markdown source. */
export function CopyMessage({ text }: { text: string }) {
  const [word, setWord] = useState<"copy" | "copied" | "failed">("copy");
  useEffect(() => {
    if (word === "copy") return;
    const timer = setTimeout(() => setWord("copy"), 1500);
    return () => clearTimeout(timer);
  }, [word]);
  return (
    <button
      type="button"
      class="link-btn copy-message"
      data-role="copy-message"
      title={t("chat.copyMessage")}
      aria-label={t("chat.copyMessage")}
      onClick={() => {
        api.copyText(text).then(
          () => setWord("copied"),
          () => setWord("failed"),
        );
      }}
    >
      <Icon name="copy" /> {word === "copied" ? t("chat.copied") : word === "failed" ? t("chat.copyFailed") : t("chat.copy")}
    </button>
  );
}

/** Shows where a link really goes before it opens; a link that cannot leave the app says so. */
function LinkDialog({ target, onOpen, onClose }: { target: LinkTarget; onOpen: () => void; onClose: () => void }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.preventDefault();
        onClose();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);
  return (
    <div class="dialog-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div class="dialog" role="alertdialog" aria-modal="true" aria-labelledby="link-dialog-title" data-role="link-dialog">
        <p id="link-dialog-title">{target.openable ? t("chat.linkDiffers") : t("chat.linkRefused")}</p>
        <code class="link-target">{target.href}</code>
        <div class="row row--end">
          <button type="button" class="btn" ref={(b) => b?.focus()} onClick={onClose}>
            {target.openable ? t("common.cancel") : t("common.close")}
          </button>
          {target.openable ? (
            <button type="button" class="btn btn--primary" onClick={onOpen} data-role="open-link">
              {t("chat.linkOpen")}
            </button>
          ) : null}
        </div>
      </div>
    </div>
  );
}
