/** What tests use to stand in for the backend's answers in the shapes the app really meets. */
import type { CommandError, ErrorKind, Invalid, Missing } from "../types";

/** A rejection in the shape every backend command rejects with (`CommandError`). */
export function commandError(kind: ErrorKind, message: string, detail: { missing?: Missing; invalid?: Invalid } = {}): CommandError {
  return { kind, message, missing: detail.missing ?? null, invalid: detail.invalid ?? null };
}
