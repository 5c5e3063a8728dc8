/**
 * Reading files the user attaches (F-57): images go to the model as images, text files are
 * inlined with their names. The limits mirror the engine's, which checks again (and reads an
 * image's real format from its bytes); this side only turns a file into an `Attachment` and
 * says early, in words, why one cannot go.
 */
import { t } from "./i18n";
import type { Attachment } from "./types";

export const MAX_ATTACHMENTS = 10;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_TEXT_BYTES = 256 * 1024;
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** Extensions read as text even when the system gives them no text type. */
const TEXT_EXTENSIONS =
  /\.(txt|md|markdown|json|jsonl|csv|tsv|log|ya?ml|toml|ini|cfg|conf|xml|html?|css|scss|js|jsx|ts|tsx|mjs|cjs|py|rb|rs|go|java|kt|c|h|cc|cpp|hpp|cs|php|sh|bash|zsh|fish|sql|swift|lua|r|pl|tex|diff|patch|env|gitignore|dockerfile|makefile)$/i;

/** Why a file cannot be attached. */
export class AttachError extends Error {}

function isText(file: File): boolean {
  return file.type.startsWith("text/") || file.type === "application/json" || TEXT_EXTENSIONS.test(file.name);
}

/** A file's bytes (FileReader: every webview has it). */
function bytesOf(file: File): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(new Uint8Array(reader.result as ArrayBuffer));
    reader.onerror = () => reject(reader.error ?? new Error(`"${file.name}" could not be read`));
    reader.readAsArrayBuffer(file);
  });
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  return btoa(binary);
}

/** Reads one file as an attachment, or says why it cannot be one. */
export async function readAttachment(file: File): Promise<Attachment> {
  if (IMAGE_TYPES.includes(file.type)) {
    if (file.size > MAX_IMAGE_BYTES) throw new AttachError(t("attach.imageTooBig", { name: file.name, max: "5 MB" }));
    const bytes = await bytesOf(file);
    return { name: file.name, kind: "image", mediaType: file.type, data: base64(bytes) };
  }
  if (isText(file)) {
    if (file.size > MAX_TEXT_BYTES) throw new AttachError(t("attach.textTooBig", { name: file.name, max: "256 KB" }));
    const text = new TextDecoder().decode(await bytesOf(file));
    if (text.includes("\0")) throw new AttachError(t("attach.unsupported", { name: file.name }));
    return { name: file.name, kind: "text", mediaType: file.type || "text/plain", data: text };
  }
  throw new AttachError(t("attach.unsupported", { name: file.name }));
}

/** Adds `files` to `current`: what can be read is added, the first reason one could not is returned. */
export async function addAttachments(current: Attachment[], files: File[]): Promise<{ attachments: Attachment[]; error: string | null }> {
  const attachments = [...current];
  let error: string | null = null;
  for (const file of files) {
    if (attachments.length >= MAX_ATTACHMENTS) {
      error ??= t("attach.tooMany", { max: MAX_ATTACHMENTS });
      break;
    }
    try {
      attachments.push(await readAttachment(file));
    } catch (e) {
      error ??= e instanceof Error ? e.message : String(e);
    }
  }
  return { attachments, error };
}

/** The `src` of an image attachment's thumbnail. */
export function imageSource(a: Attachment): string {
  return `data:${a.mediaType};base64,${a.data}`;
}
