/** What an execution card previews of a call: the command it runs, the diff it writes, or the size of a large write. */
import { formatBytes } from "../format";
import { t } from "../i18n";
import { reveal, revealDiff, type Revealed, type RevealedDiff } from "../reveal";
import type { ApprovalPreview } from "../types";
import { RevealedLine } from "./ApprovalParts";
import { PayloadPane, RevealedText } from "./Payload";

/** The command or diff an execution card shows, revealed (see reveal.ts). */
export type RevealedPreview =
  | { type: "command"; command: Revealed; cwd: string; hidden: number }
  | { type: "diff"; path: string; diff: RevealedDiff; hidden: number }
  | { type: "largeWrite"; path: string; bytesBefore: number; bytesAfter: number; hidden: number };

/** Reveals what a preview shows (every character visible) and counts what was hidden. */
export function revealPreview(p: ApprovalPreview): RevealedPreview {
  switch (p.type) {
    case "command": {
      const command = reveal(p.command);
      return { type: "command", command, cwd: p.cwd, hidden: command.hidden + reveal(p.cwd).hidden };
    }
    case "diff": {
      const diff = revealDiff(p.diff);
      return { type: "diff", path: p.path, diff, hidden: diff.hidden + reveal(p.path).hidden };
    }
    case "largeWrite":
      return { type: "largeWrite", path: p.path, bytesBefore: p.bytesBefore, bytesAfter: p.bytesAfter, hidden: reveal(p.path).hidden };
  }
}

/** The command, diff or large write an execution card asks about. */
export function Preview({ preview: p }: { preview: RevealedPreview | null }) {
  if (!p) return null;
  switch (p.type) {
    case "command":
      return (
        <div class="approval-preview">
          <div class="section-label">
            {t("approval.command")}{" "}
            <span class="muted">
              <RevealedLine text={t("approval.cwd", { cwd: p.cwd })} />
            </span>
          </div>
          <PayloadPane class="code-pane--command" lines={p.command.lines}>
            <span class="prompt">$ </span>
            <RevealedText segments={p.command.segments} />
          </PayloadPane>
        </div>
      );
    case "diff":
      return (
        <div class="approval-preview">
          <div class="section-label">
            <RevealedLine text={t("approval.diff", { path: p.path })} />
          </div>
          <PayloadPane class="diff" lines={p.diff.lines.length}>
            {p.diff.lines.map((l, i) => (
              <span key={i} class={`diff-${l.kind}`}>
                {l.prefix}
                <RevealedText segments={l.body.segments} />
                {"\n"}
              </span>
            ))}
          </PayloadPane>
        </div>
      );
    case "largeWrite":
      return (
        <div class="approval-preview">
          <p class="large-write" data-role="large-write">
            <RevealedLine text={t("approval.largeWrite", { path: p.path, before: formatBytes(p.bytesBefore), after: formatBytes(p.bytesAfter) })} />
          </p>
        </div>
      );
  }
}
