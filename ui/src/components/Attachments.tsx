import { useEffect, useRef, useState } from "preact/hooks";
import { imageSource } from "../files";
import { t } from "../i18n";
import type { Attachment } from "../types";
import { Icon } from "./icons";

/**
 * Files as thumbnails and chips: a user's attachments (F-57) or the images a tool returned
 * (F-45). An image thumbnail opens the image at full size; with `onRemove`, each file can be
 * taken off (the composer).
 */
export function Attachments({ files, label, onRemove }: { files: Attachment[]; label?: string; onRemove?: (index: number) => void }) {
  const [viewing, setViewing] = useState<number | null>(null);
  const shown = viewing === null ? undefined : files[viewing];
  return (
    <>
      <ul class="attachments" aria-label={label ?? t("attach.attached")} data-role="attachments">
        {files.map((f, i) => (
          <li key={`${i}-${f.name}`} class={`attachment attachment--${f.kind}`} title={f.name}>
            {f.kind === "image" ? (
              <button type="button" class="attachment-view" aria-label={t("attach.view", { name: f.name })} onClick={() => setViewing(i)}>
                <img src={imageSource(f)} alt={f.name} />
              </button>
            ) : (
              <Icon name="file" />
            )}
            <span class="attachment-name">{f.name}</span>
            {onRemove ? (
              <button
                type="button"
                class="icon-btn attachment-remove"
                aria-label={t("attach.remove", { name: f.name })}
                title={t("attach.remove", { name: f.name })}
                onClick={() => onRemove(i)}
              >
                ✕
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {shown ? <ImageViewer image={shown} onClose={() => setViewing(null)} /> : null}
    </>
  );
}

/** One image at full size over the window; Escape, the close button or a click beside it closes it. */
function ImageViewer({ image, onClose }: { image: Attachment; onClose: () => void }) {
  const opener = useRef<Element | null>(document.activeElement);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.preventDefault();
        e.stopPropagation();
        onClose();
      }
    };
    window.addEventListener("keydown", onKey, true);
    const back = opener.current;
    return () => {
      window.removeEventListener("keydown", onKey, true);
      if (back instanceof HTMLElement && back.isConnected) back.focus();
    };
  }, [onClose]);
  return (
    <div class="dialog-backdrop image-viewer" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <figure class="image-viewer-figure" role="dialog" aria-modal="true" aria-label={image.name} data-role="image-viewer">
        <img src={imageSource(image)} alt={image.name} />
        <figcaption>
          <span>{image.name}</span>
          <button type="button" class="btn" ref={(b) => b?.focus()} onClick={onClose}>
            {t("common.close")}
          </button>
        </figcaption>
      </figure>
    </div>
  );
}
