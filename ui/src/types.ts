/** Types shared between the UI and the Tauri commands in `api.ts`. */

/** When a tool call may run (F-01). `deny` hides the tool from the model. */
export type ExecutionPolicy = "auto" | "ask-once" | "ask-always" | "deny";

/** Whether the user reviews a tool's result before the model sees it (F-02). */
export type ResultPolicy = "never" | "on-error" | "always";

export interface ToolInfo {
  name: string;
  description: string;
  executionPolicy: ExecutionPolicy;
  resultPolicy: ResultPolicy;
  /** Safe to run in parallel, no side effects. */
  readOnly: boolean;
}

export interface ToolGroupInfo {
  name: string;
  title: string;
  description: string;
  enabled: boolean;
  tools: ToolInfo[];
}
