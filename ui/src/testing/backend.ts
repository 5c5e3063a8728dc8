/** What tests use to stand in for the backend's answers in the shapes the app really meets. */
import type { CommandError, ErrorKind } from "../types";

/** A rejection in the shape every backend command rejects with (`CommandError`). */
export function commandError(kind: ErrorKind, message: string): CommandError {
  return { kind, message };
}
