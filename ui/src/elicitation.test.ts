import { describe, expect, it } from "vitest";
import { formContent, formFields } from "./elicitation";

/** The schema of the SDK example server's `register_user` (elicitationFormExample). */
const register = {
  type: "object",
  properties: {
    username: { type: "string", title: "Username", description: "Your desired username (3-20 characters)", minLength: 3, maxLength: 20 },
    email: { type: "string", title: "Email", format: "email" },
    password: { type: "string", title: "Password", minLength: 8 },
    newsletter: { type: "boolean", title: "Newsletter", default: false },
    role: {
      type: "string",
      title: "Role",
      oneOf: [
        { const: "developer", title: "Developer" },
        { const: "designer", title: "Designer" },
      ],
      default: "developer",
    },
    interests: { type: "array", title: "Interests", items: { type: "string", enum: ["frontend", "backend"] }, minItems: 1, maxItems: 3 },
    age: { type: "integer", title: "Age", minimum: 0, maximum: 150 },
  },
  required: ["username", "email", "password"],
};

describe("a server's form", () => {
  it("becomes fields of the right kinds, in order, with the server's defaults", () => {
    const fields = formFields(register);
    expect(fields.map((f) => [f.name, f.kind.type, f.required])).toEqual([
      ["username", "text", true],
      ["email", "text", true],
      ["password", "text", true],
      ["newsletter", "boolean", false],
      ["role", "choice", false],
      ["interests", "choices", false],
      ["age", "number", false],
    ]);
    const role = fields.find((f) => f.name === "role");
    expect(role?.initial).toBe("developer");
    expect(role?.kind).toEqual({
      type: "choice",
      options: [
        { value: "developer", label: "Developer" },
        { value: "designer", label: "Designer" },
      ],
    });
    expect(fields.find((f) => f.name === "email")?.kind).toMatchObject({ type: "text", format: "email", secret: false });
    // A password asked for in a form is at least typed as dots.
    expect(fields.find((f) => f.name === "password")?.kind).toMatchObject({ type: "text", secret: true });
    expect(formFields({ type: "object", properties: { k: { type: "string", title: "API key" } } })[0]?.kind).toMatchObject({ secret: true });
  });

  it("sends what was typed as the schema's types, leaving out empty optional fields", () => {
    const fields = formFields(register);
    const made = formContent(fields, { username: "ada", email: "ada@example.org", password: "analytical", newsletter: true, age: "36" });
    expect(made).toEqual({
      ok: true,
      content: { username: "ada", email: "ada@example.org", password: "analytical", newsletter: true, role: "developer", age: 36 },
    });
  });

  it("says which fields are not filled as asked", () => {
    const fields = formFields(register);
    const made = formContent(fields, { username: "", age: "36.5", interests: [] });
    expect(made.ok).toBe(false);
    if (made.ok) return;
    expect(made.problems).toEqual({
      username: { key: "form.required" },
      email: { key: "form.required" },
      password: { key: "form.required" },
      age: { key: "form.notInteger" },
    });
    const range = formContent(fields, { username: "a", email: "e", password: "p", age: "200" });
    expect(range.ok ? null : range.problems["age"]).toEqual({ key: "form.range", min: "0", max: "150" });
  });

  it("reads nothing from a schema that is not an object", () => {
    expect(formFields(null)).toEqual([]);
    expect(formFields({ type: "object", properties: [] })).toEqual([]);
  });
});
