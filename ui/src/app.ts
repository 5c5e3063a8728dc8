import { renderError, renderLoading, renderShell, renderToolGroups } from "./render";
import type { ToolGroupInfo } from "./types";

/** Renders the shell, shows loading, then the tool groups or the error. */
export async function startApp(root: HTMLElement, load: () => Promise<ToolGroupInfo[]>): Promise<void> {
  const content = renderShell(root);
  renderLoading(content);
  let groups: ToolGroupInfo[];
  try {
    groups = await load();
  } catch (error) {
    renderError(content, error);
    return;
  }
  renderToolGroups(content, groups);
}
