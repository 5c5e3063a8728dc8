import { afterEach, describe, expect, it } from "vitest";
import { leaveDraft, takeDraft } from "./drafts";
import { setLanguage } from "./i18n";
import { carryOver, LAST_MESSAGES, QUOTED_CHARS } from "./summary";
import type { TimelineMessage } from "./timeline";

const message = (id: number, role: "user" | "assistant", content: string): TimelineMessage => ({
  id,
  role,
  content,
  reasoning: "",
  retry: null,
  status: "complete",
  toolCalls: [],
  usage: null,
  createdAt: 0,
});

afterEach(() => setLanguage("en"));

describe("a new chat carried over from one too long for the model", () => {
  it("quotes how the conversation began and where it left off, each message shortened", () => {
    const long = "x".repeat(QUOTED_CHARS + 50);
    const messages = [
      message(1, "user", "Refactor the parser"),
      ...Array.from({ length: 20 }, (_, i) => message(i + 2, i % 2 ? "user" : "assistant", i === 19 ? long : `step ${i}`)),
    ];
    const text = carryOver("Parser work", messages);
    expect(text.startsWith("Carrying on from the chat “Parser work”")).toBe(true);
    expect(text).toContain("It began with:\n\nUser: Refactor the parser");
    // The last messages, in order; the middle of the conversation is left out.
    expect(text).toContain("step 14");
    expect(text).not.toContain("step 13");
    expect(text.split("\n\n").filter((p) => p.startsWith("User:") || p.startsWith("Assistant:"))).toHaveLength(1 + LAST_MESSAGES);
    expect(text).toContain(`${"x".repeat(QUOTED_CHARS)}…`);
    expect(text).not.toContain("x".repeat(QUOTED_CHARS + 1));
    expect(text.endsWith("Let's go on from there.")).toBe(true);
  });

  it("never cuts a character in two, and speaks the user's language", () => {
    setLanguage("zh-CN");
    const text = carryOver("", [message(1, "user", `${"a".repeat(QUOTED_CHARS - 1)}🙂🙂`)]);
    expect(text).toContain("接着对话“新对话”继续");
    expect(text).toContain("用户: aaa");
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it("a draft left for a chat is taken once", () => {
    leaveDraft(7, "hello");
    expect(takeDraft(8)).toBeNull();
    expect(takeDraft(7)).toBe("hello");
    expect(takeDraft(7)).toBeNull();
  });
});
