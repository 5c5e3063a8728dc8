/**
 * Whether a name says its value is a secret (a form field's name or title): the engine's one list
 * of secret-shaped words (`SECRET_NAME_WORDS`, generated into bindings.ts from
 * `tollgate_secrets::names`), and the same way of splitting a name into words, so the window and
 * the engine never disagree about which names are a secret's.
 */
import { SECRET_NAME_WORDS, SECRET_SUFFIX_MIN } from "./bindings";

const WORDS: readonly string[] = SECRET_NAME_WORDS;

/** The words of `name`, lower case: split at anything not a letter or digit and at camelCase humps. */
export function nameWords(name: string): string[] {
  const words: string[] = [];
  let word = "";
  let prevLower = false;
  for (const c of name) {
    if (!/[\p{L}\p{N}]/u.test(c)) {
      if (word) words.push(word);
      word = "";
      prevLower = false;
      continue;
    }
    const upper = c !== c.toLowerCase() && c === c.toUpperCase();
    if (upper && prevLower && word) {
      words.push(word);
      word = "";
    }
    prevLower = (c !== c.toUpperCase() && c === c.toLowerCase()) || /\p{N}/u.test(c);
    word += c.toLowerCase();
  }
  if (word) words.push(word);
  return words;
}

function listed(word: string): boolean {
  return WORDS.some((s) => word === s || (s.length >= SECRET_SUFFIX_MIN && word.endsWith(s)));
}

/** Whether `name` says its value is a secret: a word of it, or two neighbouring words joined, is listed. */
export function secretNamed(name: string): boolean {
  const words = nameWords(name);
  return words.some(listed) || words.slice(1).some((w, i) => listed(words[i] + w));
}
