/**
 * Model output → safe HTML. Raw HTML in the markdown is shown as text (never parsed), code blocks
 * are highlighted, and the result goes through DOMPurify before it reaches `innerHTML`.
 */
import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdownLang from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import cpp from "highlight.js/lib/languages/cpp";
import { Marked } from "marked";

const languages: Record<string, Parameters<typeof hljs.registerLanguage>[1]> = {
  bash,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  markdown: markdownLang,
  python,
  rust,
  sql,
  typescript,
  xml,
  yaml,
  cpp,
};
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang);

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** Highlighted HTML for a code block (hljs escapes its input). */
export function highlight(code: string, lang: string | undefined): string {
  const name = (lang ?? "").trim().split(/\s+/, 1)[0]?.toLowerCase() ?? "";
  if (name && hljs.getLanguage(name)) {
    try {
      return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
    } catch {
      /* fall through */
    }
  }
  return escapeHtml(code);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Raw HTML from the model is displayed as text.
    html({ text }) {
      return escapeHtml(text);
    },
    code({ text, lang }) {
      const name = (lang ?? "").trim().split(/\s+/, 1)[0] ?? "";
      const label = name ? `<span class="code-lang">${escapeHtml(name)}</span>` : "";
      return `<div class="code-block">${label}<pre><code class="hljs">${highlight(text, name)}</code></pre></div>`;
    },
    image({ text }) {
      // Remote images are blocked by the CSP and could leak that a message was read.
      return escapeHtml(text ? `[${text}]` : "");
    },
  },
});

let hooked = false;
function purifier(): typeof DOMPurify {
  if (!hooked) {
    hooked = true;
    DOMPurify.addHook("afterSanitizeAttributes", (node) => {
      if (node.tagName === "A") {
        node.setAttribute("rel", "noopener noreferrer");
        const href = node.getAttribute("href") ?? "";
        if (href) node.setAttribute("title", href);
      }
    });
  }
  return DOMPurify;
}

/** Model HTML → what may reach `innerHTML`. */
function sanitize(html: string): string {
  return purifier().sanitize(html, {
    FORBID_TAGS: ["style", "img", "svg", "math", "form", "input", "button", "textarea", "select", "iframe", "object", "embed"],
    FORBID_ATTR: ["style", "id"],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
  });
}

/** Renders markdown to sanitised HTML safe for `innerHTML`. */
export function renderMarkdown(source: string): string {
  return sanitize(marked.parse(source, { async: false }) as string);
}

/**
 * Rendered markdown remembered for the texts rendered last, bounded by the characters it holds
 * (source and HTML); the least recently used go first.
 */
export class MarkdownCache {
  private map = new Map<string, string>();
  private chars = 0;

  constructor(
    private readonly limit: number,
    private readonly render: (source: string) => string = renderMarkdown,
  ) {}

  get(source: string): string {
    const hit = this.map.get(source);
    if (hit !== undefined) {
      this.map.delete(source);
      this.map.set(source, hit);
      return hit;
    }
    const html = this.render(source);
    const size = source.length + html.length;
    // A text that would push out a quarter of the rest is rendered each time instead.
    if (size > this.limit / 4) return html;
    this.map.set(source, html);
    this.chars += size;
    for (const [key, value] of this.map) {
      if (this.chars <= this.limit) break;
      this.map.delete(key);
      this.chars -= key.length + value.length;
    }
    return html;
  }

  /** Whether `source` is remembered (without counting as a use). */
  holds(source: string): boolean {
    return this.map.has(source);
  }

  get size(): number {
    return this.map.size;
  }
}

/** About 8 MB of strings: a few thousand messages. */
const rendered = new MarkdownCache(4_000_000);

/**
 * Characters of markdown one frame renders at most, beyond its first text (which always renders,
 * however long). Scrolling a long chat a screen a frame brings several messages into the
 * rendered window at once; rendering all of their markdown, code highlighting and sanitising in
 * one frame made frames of 50–100 ms (F-71). About 4,000 characters cost some 10 ms.
 */
export const FRAME_MARKDOWN_CHARS = 2_500;

/**
 * How much markdown the current frame may still render: each text takes its length from the
 * allowance, which the next frame gives back whole.
 */
export class FrameAllowance {
  private spent = 0;
  private resetting = false;

  constructor(
    private readonly limit: number,
    private readonly nextFrame: (fn: () => void) => void = (fn) => requestAnimationFrame(() => fn()),
  ) {}

  /** Takes `chars` from this frame's allowance, or says no when they do not fit. */
  take(chars: number): boolean {
    if (this.spent > 0 && this.spent + chars > this.limit) return false;
    this.spent += chars;
    if (!this.resetting) {
      this.resetting = true;
      this.nextFrame(() => {
        this.spent = 0;
        this.resetting = false;
      });
    }
    return true;
  }
}

const allowance = new FrameAllowance(FRAME_MARKDOWN_CHARS);

/**
 * Whether `source` may be rendered now: it was rendered before (and is remembered), or this
 * frame's allowance takes it. A text refused now is shown as plain text and asked for again on
 * the next frame.
 */
export function markdownReadyNow(source: string): boolean {
  return rendered.holds(source) || allowance.take(source.length);
}

/**
 * {@link renderMarkdown}, remembered for the messages rendered last: a long chat renders only the
 * messages near the viewport (F-71), so scrolling back, or opening the chat again, would render
 * the same text again.
 */
export function renderMarkdownCached(source: string): string {
  return rendered.get(source);
}

/**
 * A streamed answer rendered block by block: the blocks that are complete (another block has
 * started after them) are rendered once and kept; only the last, still growing block is rendered
 * again as text arrives. So the work per chunk stays the size of one block, and the whole answer's
 * render work grows with its length — not with its length squared, as re-rendering the whole text
 * for every chunk would.
 */
export interface MarkdownBlocks {
  /** The text these blocks were rendered from. */
  readonly source: string;
  /** Sanitised HTML of each complete block, in order; never changes once made. */
  readonly sealed: readonly string[];
  /** How much of `source` the sealed blocks cover. */
  readonly sealedLength: number;
  /** Sanitised HTML of the rest: the block still being written. */
  readonly tail: string;
  /** Characters lexed and rendered to make this from the previous blocks (a measure of work). */
  readonly work: number;
}

/**
 * The blocks of `source`, reusing `previous` when `source` continues its text. Reference-style
 * links defined in a later block are not resolved in earlier ones: the finished answer is
 * rendered whole with {@link renderMarkdown}.
 */
export function renderBlocks(source: string, previous?: MarkdownBlocks): MarkdownBlocks {
  const text = source.replace(/\r\n?/g, "\n");
  const reuse = previous && text.startsWith(previous.source.slice(0, previous.sealedLength));
  const kept: readonly string[] = reuse ? previous.sealed : [];
  const fresh: string[] = [];
  let sealedLength = reuse ? previous.sealedLength : 0;
  const rest = text.slice(sealedLength);
  const tokens = marked.lexer(rest);
  // A block is complete once a block (not just blank lines) follows it.
  let last = tokens.length - 1;
  while (last > 0 && tokens[last]?.type === "space") last -= 1;
  let covered = 0;
  for (const token of tokens.slice(0, last)) covered += token.raw.length;
  // Only when the tokens account for the text exactly can the split be trusted.
  const total = tokens.reduce((n, token) => n + token.raw.length, 0);
  // Lexing what was not sealed before, then rendering what gets sealed now and the tail.
  let work = rest.length;
  if (total === rest.length && last > 0) {
    for (const token of tokens.slice(0, last)) {
      if (token.type === "space") continue;
      const one = Object.assign([token], { links: tokens.links });
      fresh.push(sanitize(marked.parser(one) as string));
    }
    sealedLength += covered;
    work += covered;
  }
  const tail = renderMarkdown(text.slice(sealedLength));
  work += text.length - sealedLength;
  // A new list only when blocks were added (once per block), so unchanged blocks keep their HTML.
  const sealed = fresh.length ? [...kept, ...fresh] : kept;
  return { source: text, sealed, sealedLength, tail, work };
}
