import { describe, expect, it } from "vitest";
import examples from "../../src-tauri/crates/secrets/src/secret_names.json";
import { nameWords, secretNamed } from "./secretNames";

// The engine's `tollgate_secrets::names` tests read the same examples: the two must agree.
describe("secret-shaped names", () => {
  it("finds names that say secret in every spelling", () => {
    expect(examples.secret.length).toBeGreaterThan(10);
    for (const name of examples.secret) expect(secretNamed(name), name).toBe(true);
  });

  it("leaves names that only contain the letters", () => {
    expect(examples.not.length).toBeGreaterThan(5);
    for (const name of examples.not) expect(secretNamed(name), name).toBe(false);
  });

  it("splits at separators and humps as the engine does", () => {
    const table = Object.entries(examples.words);
    expect(table.length).toBeGreaterThanOrEqual(8);
    for (const [name, words] of table) expect(nameWords(name), name).toEqual(words);
  });
});
