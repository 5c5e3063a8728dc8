import { describe, expect, it } from "vitest";
import { framesDuring } from "./testFrames";
import { forgetTyping } from "./typing";

describe("forgetTyping", () => {
  it("unloads a blank frame (which makes WebKit clear its undo history) and leaves the page as it was", () => {
    document.body.innerHTML = "<p>kept</p>";
    expect(framesDuring(() => forgetTyping())).toEqual({ added: 1, removed: 1 });
    expect(document.body.innerHTML).toBe("<p>kept</p>");
  });
});
