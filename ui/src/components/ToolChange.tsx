/**
 * A changed MCP tool (SPEC §11), on the approval card and in Settings → MCP servers: which
 * server, why its grants are set aside, each changed part as a diff, and "Accept this version",
 * which accepts exactly the definition shown.
 */
import * as api from "../api";
import { t } from "../i18n";
import type { Key } from "../i18n/en";
import { partDiff } from "../toolChange";
import type { DefinitionPart, ToolChange } from "../types";
import { ConfirmRow } from "./ConfirmRow";
import { useAction } from "./hooks";
import { RevealedText } from "./Payload";
import { reveal } from "../reveal";

const PART_KEYS: Record<DefinitionPart, Key> = {
  title: "change.part.title",
  description: "change.part.description",
  inputSchema: "change.part.inputSchema",
  outputSchema: "change.part.outputSchema",
  annotations: "change.part.annotations",
};

function PartDiff({ change, part }: { change: ToolChange; part: DefinitionPart }) {
  const lines = partDiff(change.before ?? null, change.after, part);
  return (
    <div class="change-part" data-part={part}>
      <div class="section-label">{t(PART_KEYS[part])}</div>
      <pre class="diff code-pane">
        {lines.map((l, i) => (
          <span key={i} class={l.kind === "same" ? "diff-context" : l.kind === "add" ? "diff-add" : "diff-del"}>
            {l.kind === "same" ? "  " : l.kind === "add" ? "+ " : "- "}
            <RevealedText segments={reveal(l.text).segments} />
            {"\n"}
          </span>
        ))}
      </pre>
    </div>
  );
}

/** Why the grants are set aside, in one sentence. */
function changeWhy(change: ToolChange): string {
  if (change.reason === "changed") return t("change.whyChanged", { server: change.server, tool: change.tool });
  return change.before
    ? t("change.whyReplaced", { server: change.server, tool: change.tool })
    : t("change.whyNew", { server: change.server, tool: change.tool });
}

export function ToolChangeView(props: { change: ToolChange; onAccepted?: () => void }) {
  const { change } = props;
  const action = useAction();
  const accept = async () => {
    if (await action.run(() => api.acceptMcpToolChange(change.server, change.tool, change.fingerprint))) props.onAccepted?.();
  };
  return (
    <div class="tool-change" data-role="tool-change" data-tool={change.tool}>
      <p class="tool-change-why">{changeWhy(change)}</p>
      {change.changed.length === 0 ? <p class="muted small">{t("change.sameDefinition")}</p> : null}
      {change.changed.map((part) => (
        <PartDiff key={part} change={change} part={part} />
      ))}
      <ConfirmRow
        error={action.error}
        busy={action.busy}
        label={t("change.accept")}
        hint={t("change.acceptHint")}
        role="accept-change"
        onConfirm={() => void accept()}
      />
    </div>
  );
}
