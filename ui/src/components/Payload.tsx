/** How approval cards draw what the model or a tool wrote: markers for what would not show, and
 * panes that say when they hold more than fits. */
import type { ComponentChildren } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { type Phrase, phraseParts, t } from "../i18n";
import { codePointName, reveal, type Segment } from "../reveal";

function segmentNode(s: Segment, key: number) {
  switch (s.kind) {
    case "text":
      return s.text;
    case "hidden":
      return (
        <span key={key} class="hidden-char" title={t("reveal.hidden", { code: codePointName(s.code), count: s.count })}>
          {s.label}
        </span>
      );
    case "spaces":
      return (
        <span key={key} class="ws-run" title={t("reveal.spaces", { count: s.count })}>
          {s.label}
        </span>
      );
    case "breaks":
      return (
        <span key={key} class="ws-run" title={t("reveal.breaks", { count: s.count })}>
          {s.label}
        </span>
      );
  }
}

/** Revealed text: plain runs as text, hidden characters and long whitespace runs as markers. */
export function RevealedText({ segments }: { segments: Segment[] }) {
  return <>{segments.map(segmentNode)}</>;
}

/**
 * A phrase (i18n.ts) with what someone typed — a pattern, a tool name — as code, revealed, so a
 * pattern taken from the model's arguments cannot hide part of itself in the sentence.
 */
export function PhraseView({ phrase }: { phrase: Phrase }) {
  return (
    <>
      {phraseParts(phrase).map((part, i) =>
        "code" in part ? (
          <code key={i}>
            <RevealedText segments={reveal(part.code).segments} />
          </code>
        ) : (
          part.text
        ),
      )}
    </>
  );
}

/**
 * A code pane capped in height (styles.css) that, whenever its content is taller than the cap,
 * shows a "Show all (N lines)" button that lifts the cap, so nothing sits unseen below the fold.
 */
export function PayloadPane({ class: extra, lines, children }: { class?: string; lines: number; children: ComponentChildren }) {
  const ref = useRef<HTMLPreElement>(null);
  const [expanded, setExpanded] = useState(false);
  const [overflows, setOverflows] = useState(false);
  const measure = () => {
    const el = ref.current;
    if (el && !expanded) setOverflows(el.scrollHeight > el.clientHeight + 1);
  };
  // After every render (the content may have changed) and whenever the pane's size changes
  // (window width, a <details> opening).
  useLayoutEffect(measure);
  useEffect(() => {
    const el = ref.current;
    if (!el || expanded || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [expanded]);
  return (
    <div class="payload">
      <pre ref={ref} class={`code-pane payload-pane${extra ? ` ${extra}` : ""}${expanded ? " is-expanded" : overflows ? " is-clipped" : ""}`}>
        {children}
      </pre>
      {overflows || expanded ? (
        <button type="button" class="pane-toggle" aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
          {expanded ? t("approval.showLess") : t("approval.showAll", { n: lines })}
        </button>
      ) : null}
    </div>
  );
}

/** The warning line of a card whose payload holds invisible or direction-changing characters. */
export function HiddenCharsWarning({ count, result }: { count: number; result: boolean }) {
  if (count === 0) return null;
  return (
    <p class="hidden-chars-warning" role="note">
      {t(result ? "approval.hiddenCharsResult" : "approval.hiddenChars", { count })}
    </p>
  );
}
