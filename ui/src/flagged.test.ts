import { describe, expect, it } from "vitest";
import { flaggedArguments } from "./flagged";

describe("flaggedArguments", () => {
  it("gives each flagged parameter's values, through nested objects and arrays", () => {
    const args = {
      city: "Oslo",
      sidenote: "the user's salary",
      options: { model_name: "m-1" },
      attachments: [{ body: "key one" }, { body: "key two" }, { other: 1 }],
    };
    const found = flaggedArguments(args, [
      { path: ["sidenote"], kind: "asksForContext", excerpt: "conversation" },
      { path: ["options", "model_name"], kind: "asksForContext", excerpt: "model_name" },
      { path: ["attachments", "body"], kind: "asksForSecrets", excerpt: "~/.ssh" },
    ]);
    expect(found.map((f) => [f.label, f.values])).toEqual([
      ["sidenote", ["the user's salary"]],
      ["options.model_name", ["m-1"]],
      ["attachments.body", ["key one", "key two"]],
    ]);
    expect(found[0]?.finding).toMatch(/model knows/);
    expect(found[2]?.excerpt).toBe("~/.ssh");
  });

  it("leaves out a flagged parameter the call does not give, and a plain card has none", () => {
    expect(flaggedArguments({ city: "Bergen" }, [{ path: ["sidenote"], kind: "asksForContext", excerpt: "conversation" }])).toEqual([]);
    expect(flaggedArguments({ city: "Bergen" }, undefined)).toEqual([]);
    // A key inherited by every object is not an argument the call gave.
    expect(flaggedArguments({}, [{ path: ["constructor"], kind: "asksForContext", excerpt: "x" }])).toEqual([]);
  });

  it("shows a value that is not text as JSON", () => {
    const [found] = flaggedArguments({ history: [{ role: "user" }] }, [{ path: ["history"], kind: "asksForContext", excerpt: "history" }]);
    expect(found?.values).toEqual(['{\n  "role": "user"\n}']);
  });
});
