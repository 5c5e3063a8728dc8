import { afterEach, describe, expect, it } from "vitest";
import { phraseParts, phraseText, setLanguage } from "./i18n";
import { everyCallWords, ruleWords, splitPatternWords } from "./ruleWords";

afterEach(() => setLanguage("en"));

/** The sentence as plain text. */
function words(...args: Parameters<typeof ruleWords>): string {
  return phraseText(ruleWords(...args).sentence);
}

/** The parts of the sentence shown as code. */
function codes(...args: Parameters<typeof ruleWords>): string[] {
  return phraseParts(ruleWords(...args).sentence).flatMap((p) => ("code" in p ? [p.code] : []));
}

const OPERATORS = "but never with >, |, ;, &&, $(…) or other shell operators (those always ask).";

describe("splitPatternWords", () => {
  it("splits on whitespace and keeps quoted words whole", () => {
    expect(splitPatternWords(`git  commit -m 'a b' "c d" e\\ f`)?.map((w) => w.text)).toEqual(["git", "commit", "-m", "a b", "c d", "e f"]);
    expect(splitPatternWords(`a'b c'd`)?.map((w) => w.text)).toEqual(["ab cd"]);
    expect(splitPatternWords(`say "a \\"q\\" \\n"`)?.map((w) => w.text)).toEqual(["say", 'a "q" \\n']);
    expect(splitPatternWords(`echo ''`)?.map((w) => w.text)).toEqual(["echo", ""]);
  });

  it("remembers where each word was, and refuses an unclosed quote", () => {
    expect(splitPatternWords("git 'a b' *")?.map((w) => [w.start, w.end])).toEqual([
      [0, 3],
      [4, 9],
      [10, 11],
    ]);
    expect(splitPatternWords("echo 'open")).toBeNull();
    expect(splitPatternWords('echo "open')).toBeNull();
  });
});

describe("ruleWords: commands", () => {
  it("a final * is any further words, in any chat, never with shell operators", () => {
    const r = ruleWords("command", "run_command", "git status *", "allChats");
    expect(r.status).toBe("ok");
    expect(phraseText(r.sentence)).toBe(`run_command runs without asking for git status with any further words, in any chat — ${OPERATORS}`);
    expect(codes("command", "run_command", "git status *", "allChats")).toEqual(["run_command", "git status", ">", "|", ";", "&&", "$(…)"]);
  });

  it("without a final * it is exactly the command", () => {
    expect(words("command", "run_command", "  rm -rf build ", "thisChat")).toBe(
      `run_command runs without asking for exactly rm -rf build, in this chat — ${OPERATORS}`,
    );
  });

  it("shows quoted words as typed", () => {
    expect(codes("command", "shell", `git commit -m 'fix: x' *`, "thisChat")[1]).toBe(`git commit -m 'fix: x'`);
  });

  it("says that * and ? inside a word match within that word only", () => {
    expect(words("command", "shell", "ls *.txt", "thisChat")).toContain(
      "exactly ls *.txt (* and ? inside a word match characters within that one word only), in this chat",
    );
    expect(words("command", "shell", "cat src/?.rs *", "thisChat")).toContain("cat src/?.rs with any further words (* and ?");
  });

  it("a lone * is any one command, still never with shell operators", () => {
    expect(words("command", "shell", "*", "thisChat")).toBe(
      `shell runs without asking for any one command, with any words, in this chat — ${OPERATORS}`,
    );
  });

  it("a whole-word * before the end, or an unclosed quote, cannot be read", () => {
    expect(ruleWords("command", "shell", "git * status", "thisChat")).toMatchObject({ status: "unreadable" });
    expect(words("command", "shell", "git * status", "thisChat")).toContain("may only be the last word");
    expect(ruleWords("command", "shell", "* *", "thisChat").status).toBe("unreadable");
    expect(ruleWords("command", "shell", "echo 'hi", "thisChat")).toMatchObject({ status: "unreadable" });
    expect(words("command", "shell", "echo 'hi", "thisChat")).toContain("a quote is not closed");
  });
});

describe("ruleWords: paths, URLs and arguments", () => {
  it("a folder/** pattern is any depth below the folder, inside the workspace after symlinks", () => {
    expect(words("path", "read_file", "docs/**", "thisChat")).toBe(
      "read_file runs without asking on files matching docs/** (any depth below docs/), in this chat — relative to the workspace and matched after following symlinks; never a path outside the workspace.",
    );
  });

  it("a glob explains * within one folder name and ** at any depth; a plain path is exactly that path", () => {
    expect(words("path", "read_file", "src/*.rs", "allChats")).toContain(
      "files matching src/*.rs (* is any characters within one folder name, ** any depth of folders, ? one character), in any chat",
    );
    expect(words("path", "read_file", "src/**/mod.rs", "thisChat")).toContain("files matching src/**/mod.rs (*");
    expect(words("path", "read_file", "src/a.rs", "thisChat")).toContain("on exactly the path src/a.rs, in this chat");
  });

  it("URLs are wildcards over the normalised URL", () => {
    expect(words("url", "fetch_url", "https://docs.rs/*", "allChats")).toBe(
      "fetch_url runs without asking for URLs matching https://docs.rs/* (* is any characters, / included), in any chat (URLs are normalised before they are matched).",
    );
    expect(words("url", "fetch_url", "https://docs.rs/serde", "thisChat")).toContain("exactly the URL https://docs.rs/serde,");
  });

  it("arguments without a wildcard are exactly these arguments", () => {
    expect(words("args", "everything__echo", '{"message":"hi"}', "thisChat")).toBe(
      'everything__echo runs without asking for calls with exactly these arguments: {"message":"hi"}, in this chat (arguments are compared as canonical JSON).',
    );
    expect(words("args", "everything__echo", '{"message":"*"}', "thisChat")).toContain(
      'calls whose arguments match {"message":"*"} (* is any characters)',
    );
  });
});

describe("ruleWords: an empty pattern is never every call", () => {
  it("asks for a pattern, for every kind", () => {
    for (const kind of ["command", "path", "url", "args"] as const) {
      const r = ruleWords(kind, "run_command", "  \t ", "allChats");
      expect(r.status).toBe("needsPattern");
      expect(phraseText(r.sentence)).toBe("A pattern is needed: type what the rule should allow, or choose “Every call of run_command”.");
    }
  });

  it("every call is its own warning, with its scope", () => {
    expect(phraseText(everyCallWords("run_command", "thisChat"))).toBe(
      "Every call of run_command in this chat, whatever its arguments — including ones that delete files or send data.",
    );
  });

  it("says the same in Chinese", () => {
    setLanguage("zh-CN");
    expect(words("command", "run_command", "git status *", "allChats")).toBe(
      "run_command 将不经询问运行git status 后接任意更多词的命令，在所有对话中——但绝不包括带有 >、|、;、&&、$(…) 或其他 shell 运算符的命令（这些总是会询问）。",
    );
    expect(words("command", "run_command", "", "allChats")).toBe("需要填写模式：输入此规则应允许的内容，或选择“run_command 的每一次调用”。");
  });
});
