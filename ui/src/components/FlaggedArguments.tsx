/**
 * The arguments of a call given for parameters the server's review flagged (F-97), on the
 * call's card: which argument, what the review found in its parameter, and the value that would
 * leave — so a parameter asking for the conversation is seen where its value is sent.
 */
import { flaggedArguments } from "../flagged";
import { t } from "../i18n";
import { reveal } from "../reveal";
import type { FlaggedParameter, JsonValue } from "../types";
import { RevealedText } from "./Payload";

export function FlaggedArgumentsView({ args, flagged }: { args: JsonValue; flagged: FlaggedParameter[] | undefined }) {
  const found = flaggedArguments(args, flagged);
  if (found.length === 0) return null;
  return (
    <div class="flagged-args" data-role="flagged-args" role="note">
      <p class="flagged-args-why">{t("approval.flaggedTitle", { count: found.length })}</p>
      {found.map((f) => (
        <div key={f.label} class="guard-arg" data-flagged={f.label}>
          <span class="guard-arg-name">
            <span class="mono">{f.label}</span> — {f.finding}
            {f.excerpt && f.excerpt !== f.label ? <span class="muted"> ({t("approval.flaggedBy", { words: f.excerpt })})</span> : null}
          </span>
          {f.values.map((v, i) => (
            <pre key={i} class="guard-arg-text mono">
              <RevealedText segments={reveal(v).segments} />
            </pre>
          ))}
        </div>
      ))}
    </div>
  );
}
