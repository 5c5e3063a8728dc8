/**
 * The arguments of a call given for parameters the server's review flagged (F-97): what the
 * review found beside the value that would leave, so the card says it where the user decides.
 */
import { type Key, t } from "./i18n";
import type { FindingKind, FlaggedParameter, JsonValue } from "./types";

/** Each kind of finding, in the user's words (the review and the card say it the same way). */
export const FINDING_KEYS: Record<FindingKind, Key> = {
  hiddenText: "review.finding.hiddenText",
  addressedToModel: "review.finding.addressedToModel",
  shadowing: "review.finding.shadowing",
  asksForSecrets: "review.finding.asksForSecrets",
  longerThanItsSchema: "review.finding.longerThanItsSchema",
  asksForContext: "review.finding.asksForContext",
};

/** One flagged argument as the card shows it. */
export interface FlaggedArgument {
  /** Its place in the arguments, as the user reads it (`options.sidenote`). */
  label: string;
  /** What the review found, in the user's words. */
  finding: string;
  /** The words that flagged it. */
  excerpt: string;
  /** Every value the call gives it (through arrays), as text. */
  values: string[];
}

function valuesAt(value: JsonValue | undefined, path: string[]): JsonValue[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item) => valuesAt(item, path));
  const [key, ...rest] = path;
  if (key === undefined) return [value];
  if (typeof value !== "object") return [];
  return Object.prototype.hasOwnProperty.call(value, key) ? valuesAt((value as Record<string, JsonValue>)[key], rest) : [];
}

function asText(value: JsonValue): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/** The flagged parameters `args` gives a value for, with those values. */
export function flaggedArguments(args: JsonValue, flagged: FlaggedParameter[] | undefined): FlaggedArgument[] {
  return (flagged ?? []).flatMap((p) => {
    const values = valuesAt(args, p.path).map(asText);
    if (values.length === 0) return [];
    return [{ label: p.path.join("."), finding: t(FINDING_KEYS[p.kind]), excerpt: p.excerpt, values }];
  });
}
