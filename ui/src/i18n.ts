/** UI strings in English and Simplified Chinese (one catalogue per language in `i18n/`). `{name}` placeholders are filled by `t`. */
import type { Language } from "./types";
import { en, type Key } from "./i18n/en";
import { zhCN } from "./i18n/zh-CN";

export { en, type Key, zhCN };

const dictionaries: Record<Language, Record<Key, string>> = { en, "zh-CN": zhCN };

let current: Language = "en";

export function setLanguage(lang: Language): void {
  current = lang in dictionaries ? lang : "en";
  if (typeof document !== "undefined") document.documentElement.lang = current;
}

export function language(): Language {
  return current;
}

/** The string for `key` in the current language, with `{name}` placeholders filled. */
export function t(key: Key, vars: Record<string, string | number> = {}): string {
  const text = dictionaries[current][key] ?? en[key];
  return text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

/** A value in a phrase: words someone typed (a pattern, a tool name), shown as code, or a nested phrase. */
export type Slot = { code: string } | Phrase;

/**
 * A sentence as data: a key and its placeholders' values. Built by pure modules (ruleWords.ts),
 * turned into text or elements here and in the components, so code stays code in every language.
 */
export interface Phrase {
  key: Key;
  vars?: Record<string, Slot>;
}

/** A piece of a rendered phrase: plain text of the dictionary, or code someone typed. */
export type PhrasePart = { text: string } | { code: string };

/** The phrase in the current language as flat parts; a placeholder without a value stays as written. */
export function phraseParts(phrase: Phrase): PhrasePart[] {
  const text = dictionaries[current][phrase.key] ?? en[phrase.key];
  const parts: PhrasePart[] = [];
  const re = /\{(\w+)\}/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) parts.push({ text: text.slice(last, m.index) });
    const slot = phrase.vars?.[m[1] ?? ""];
    if (!slot) parts.push({ text: m[0] });
    else if ("code" in slot) parts.push({ code: slot.code });
    else parts.push(...phraseParts(slot));
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}

/** The phrase as plain text (code as it is written). */
export function phraseText(phrase: Phrase): string {
  return phraseParts(phrase)
    .map((p) => ("code" in p ? p.code : p.text))
    .join("");
}
