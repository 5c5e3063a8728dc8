/** Test support: chats as the sidebar lists them. */
import type { ChatRow } from "../types";

/** A chat with the defaults a new chat has, `fields` overriding them. */
export function chatRow(id: number, fields: Partial<ChatRow> = {}): ChatRow {
  return {
    id,
    title: `Chat ${id}`,
    providerId: null,
    model: "",
    systemPrompt: "",
    workspace: null,
    toolOverrides: { groups: {}, tools: {}, sandbox: { level: "workspaceOnly", network: false } },
    params: {},
    createdAt: 0,
    updatedAt: 0,
    ...fields,
  };
}
