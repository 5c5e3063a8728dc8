/**
 * What an "always allow" rule will let through, in plain words (F-05). Pure: it returns phrases
 * (dictionary keys with their values, see i18n.ts) and the UI renders them.
 *
 * The words mirror the engine's matching (engine/src/rules), never a wider or narrower reading:
 * - command: the pattern's words (shell-like quoting) against ONE plain simple command; a final
 *   word `*` is "any further words"; `*` and `?` inside a word match within that word only; an
 *   allow never matches redirections, pipes, lists, substitutions, variables, subshells, globs
 *   or `VAR=x` prefixes.
 * - path: a glob relative to the workspace, after symlinks; never a path outside it.
 * - url: a wildcard over the normalised URL.
 * - args: a wildcard over the canonical JSON of the arguments.
 *
 * Where the quoting of a wildcard is in doubt the words claim the wider match: a sentence may
 * say a rule allows more than it does, never less.
 */
import type { Phrase, Slot } from "./i18n";
import type { RuleScopeChoice, RuleSubjectKind } from "./types";

/**
 * The words for a pattern. `ok`: the sentence says what the rule allows. `needsPattern`: the
 * pattern is empty, so no rule can be made from it (never read as "every call").
 * `unreadable`: the engine will refuse it (it shows why when asked); the sentence says why.
 */
export interface RuleWords {
  status: "ok" | "needsPattern" | "unreadable";
  sentence: Phrase;
}

/** One word of a command pattern: its text after quoting, and where it was in the pattern. */
export interface PatternWord {
  text: string;
  start: number;
  end: number;
}

const code = (text: string): Slot => ({ code: text });

/** "in this chat" / "in any chat". */
export function scopeWords(scope: RuleScopeChoice): Phrase {
  switch (scope) {
    case "thisChat":
      return { key: "rule.scopeThisChat" };
    case "allChats":
      return { key: "rule.scopeAllChats" };
  }
}

/** The warning for a rule without a pattern: every call of the tool, whatever its arguments. */
export function everyCallWords(tool: string, scope: RuleScopeChoice): Phrase {
  return { key: "rule.everyCall", vars: { tool: code(tool), scope: scopeWords(scope) } };
}

/** The label of the "every call" choice, also named by the hint for an empty pattern. */
export function everyCallChoice(tool: string): Phrase {
  return { key: "approval.grantEveryCall", vars: { tool: code(tool) } };
}

/**
 * Splits a command pattern into words as a shell would quote them: whitespace separates words;
 * `'…'` is literal; `"…"` is literal but for `\` before `"`, `\`, `$`, `` ` ``; a `\` outside
 * quotes takes the next character literally; adjacent pieces join into one word. `null` when a
 * quote is not closed.
 */
export function splitPatternWords(pattern: string): PatternWord[] | null {
  const words: PatternWord[] = [];
  let word: PatternWord | null = null;
  const add = (text: string, at: number, end: number) => {
    if (!word) {
      word = { text: "", start: at, end };
      words.push(word);
    }
    word.text += text;
    word.end = end;
  };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i] ?? "";
    if (/\s/.test(c)) {
      word = null;
      i++;
    } else if (c === "'") {
      const close = pattern.indexOf("'", i + 1);
      if (close < 0) return null;
      add(pattern.slice(i + 1, close), i, close + 1);
      i = close + 1;
    } else if (c === '"') {
      let j = i + 1;
      let text = "";
      for (; j < pattern.length && pattern[j] !== '"'; j++) {
        const next = pattern[j + 1];
        if (pattern[j] === "\\" && next !== undefined && '"\\$`'.includes(next)) {
          text += next;
          j++;
        } else {
          text += pattern[j];
        }
      }
      if (j >= pattern.length) return null;
      add(text, i, j + 1);
      i = j + 1;
    } else if (c === "\\" && i + 1 < pattern.length) {
      add(pattern[i + 1] ?? "", i, i + 2);
      i += 2;
    } else {
      add(c, i, i + 1);
      i++;
    }
  }
  return words;
}

/** Whether text has a wildcard character of the engine's simple wildcards (`*`, `?`). */
function hasWildcard(text: string): boolean {
  return text.includes("*") || text.includes("?");
}

/** The words for a command pattern (see the module doc). */
function commandWords(tool: string, pattern: string, scope: RuleScopeChoice): RuleWords {
  const words = splitPatternWords(pattern);
  if (!words) return { status: "unreadable", sentence: { key: "rule.unclosedQuote" } };
  const last = words[words.length - 1];
  const anyFurther = last?.text === "*";
  const fixed = anyFurther ? words.slice(0, -1) : words;
  if (fixed.some((w) => w.text === "*")) {
    return { status: "unreadable", sentence: { key: "rule.starNotLast", vars: { star: code("*") } } };
  }
  const first = fixed[0];
  const end = fixed[fixed.length - 1];
  let what: Phrase;
  if (!first || !end) what = { key: "rule.commandAny" };
  else {
    const shown = code(pattern.slice(first.start, end.end));
    what = anyFurther ? { key: "rule.commandPrefix", vars: { command: shown } } : { key: "rule.commandExact", vars: { command: shown } };
  }
  if (fixed.some((w) => hasWildcard(w.text))) {
    what = { key: "rule.commandWordWildcards", vars: { what, star: code("*"), question: code("?") } };
  }
  return {
    status: "ok",
    sentence: {
      key: "rule.command",
      vars: {
        tool: code(tool),
        what,
        scope: scopeWords(scope),
        redirect: code(">"),
        pipe: code("|"),
        list: code(";"),
        and: code("&&"),
        subst: code("$(…)"),
      },
    },
  };
}

/** The words for a path glob (globset with `/` literal: `*` within one name, `**` any depth). */
function pathWords(tool: string, pattern: string, scope: RuleScopeChoice): RuleWords {
  const isGlob = /[*?[\]{}]/.test(pattern);
  const below = pattern.endsWith("/**") ? pattern.slice(0, -2) : null;
  let what: Phrase;
  if (!isGlob) what = { key: "rule.pathExact", vars: { pattern: code(pattern) } };
  else if (below && !/[*?[\]{}]/.test(below)) what = { key: "rule.pathBelow", vars: { pattern: code(pattern), folder: code(below) } };
  else {
    what = {
      key: "rule.pathGlob",
      vars: { pattern: code(pattern), star: code("*"), globstar: code("**"), question: code("?") },
    };
  }
  return { status: "ok", sentence: { key: "rule.path", vars: { tool: code(tool), what, scope: scopeWords(scope) } } };
}

/** The words for a wildcard over a normalised URL. */
function urlWords(tool: string, pattern: string, scope: RuleScopeChoice): RuleWords {
  const what: Phrase = hasWildcard(pattern)
    ? { key: "rule.urlMatching", vars: { pattern: code(pattern), star: code("*"), slash: code("/") } }
    : { key: "rule.urlExact", vars: { pattern: code(pattern) } };
  return { status: "ok", sentence: { key: "rule.url", vars: { tool: code(tool), what, scope: scopeWords(scope) } } };
}

/** The words for a wildcard over the canonical JSON of the arguments. */
function argsWords(tool: string, pattern: string, scope: RuleScopeChoice): RuleWords {
  const what: Phrase = hasWildcard(pattern)
    ? { key: "rule.argsMatching", vars: { pattern: code(pattern), star: code("*") } }
    : { key: "rule.argsExact", vars: { pattern: code(pattern) } };
  return { status: "ok", sentence: { key: "rule.args", vars: { tool: code(tool), what, scope: scopeWords(scope) } } };
}

/**
 * What a rule for `tool` with `pattern` (as typed; it is trimmed, as it is sent) would allow,
 * `scope` included. An empty pattern is `needsPattern`: it never means "every call".
 */
export function ruleWords(kind: RuleSubjectKind, tool: string, pattern: string, scope: RuleScopeChoice): RuleWords {
  const p = pattern.trim();
  if (!p) {
    return { status: "needsPattern", sentence: { key: "rule.patternNeeded", vars: { everyCall: everyCallChoice(tool) } } };
  }
  switch (kind) {
    case "command":
      return commandWords(tool, p, scope);
    case "path":
      return pathWords(tool, p, scope);
    case "url":
      return urlWords(tool, p, scope);
    case "args":
      return argsWords(tool, p, scope);
  }
}
