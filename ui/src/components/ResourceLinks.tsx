import { useState } from "preact/hooks";
import * as api from "../api";
import { errorMessage } from "../format";
import { t } from "../i18n";
import type { Attachment } from "../types";
import { Icon } from "./icons";

/** Where a link points: the server and the resource's URI (from its source), if it says. */
export function linkTarget(link: Attachment): { server: string; uri: string } | null {
  return link.kind === "resourceLink" && link.source?.type === "mcpResource" ? { server: link.source.server, uri: link.source.uri } : null;
}

type LinkState = { state: "idle" } | { state: "reading" } | { state: "attached" } | { state: "failed"; message: string };

/**
 * The resources a tool's result linked (SPEC §11): each with its address, and with `onAttach`
 * a button that reads the resource from its server and puts it in the message being written.
 */
export function ResourceLinks({ links, onAttach }: { links: Attachment[]; onAttach?: ((files: Attachment[]) => void) | undefined }) {
  const [states, setStates] = useState<Record<number, LinkState>>({});
  const attach = async (i: number, target: { server: string; uri: string }) => {
    if (!onAttach) return;
    setStates((s) => ({ ...s, [i]: { state: "reading" } }));
    try {
      onAttach(await api.readMcpResource(target.server, target.uri));
      setStates((s) => ({ ...s, [i]: { state: "attached" } }));
    } catch (e) {
      setStates((s) => ({ ...s, [i]: { state: "failed", message: errorMessage(e) } }));
    }
  };
  return (
    <ul class="resource-links" aria-label={t("tool.links")} data-role="resource-links">
      {links.map((link, i) => {
        const target = linkTarget(link);
        const state = states[i] ?? { state: "idle" };
        return (
          <li key={`${i}-${link.data}`} class="resource-link">
            <Icon name="paperclip" />
            <span class="resource-link-name">{link.name}</span>
            <code class="resource-link-uri" title={link.data}>
              {link.data}
            </code>
            {onAttach && target ? (
              <button
                type="button"
                class="btn btn--small"
                data-role="attach-link"
                disabled={state.state === "reading"}
                aria-label={t("tool.attachLink", { name: link.name })}
                onClick={() => void attach(i, target)}
              >
                {state.state === "attached" ? t("tool.linkAttached") : state.state === "reading" ? t("tool.linkReading") : t("tool.attach")}
              </button>
            ) : null}
            {state.state === "failed" ? (
              <span class="tone-error resource-link-error" role="alert">
                {state.message}
              </span>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}
