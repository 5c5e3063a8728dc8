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

/** Renders markdown to sanitised HTML safe for `innerHTML`. */
export function renderMarkdown(source: string): string {
  const html = marked.parse(source, { async: false }) as string;
  return purifier().sanitize(html, {
    FORBID_TAGS: ["style", "img", "svg", "math", "form", "input", "button", "textarea", "select", "iframe", "object", "embed"],
    FORBID_ATTR: ["style", "id"],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
  });
}
