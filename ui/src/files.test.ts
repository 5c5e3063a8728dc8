import { describe, expect, it } from "vitest";
import { addAttachments, imageSource, MAX_ATTACHMENTS, readAttachment } from "./files";

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

describe("attaching files (F-57)", () => {
  it("reads an image as base64 and a text file as its text", async () => {
    const image = await readAttachment(new File([png], "dot.png", { type: "image/png" }));
    expect(image).toEqual({ name: "dot.png", kind: "image", mediaType: "image/png", data: btoa(String.fromCharCode(...png)) });
    expect(imageSource(image)).toBe(`data:image/png;base64,${image.data}`);
    const notes = await readAttachment(new File(["- milk"], "notes.md", { type: "" }));
    expect(notes).toMatchObject({ kind: "text", data: "- milk", mediaType: "text/plain" });
  });

  it("says why a file cannot go: too big, not an image or text, too many", async () => {
    await expect(readAttachment(new File([new Uint8Array(6 * 1024 * 1024)], "big.png", { type: "image/png" }))).rejects.toThrow(
      '"big.png" is larger than 5 MB',
    );
    await expect(readAttachment(new File([new Uint8Array(300 * 1024)], "big.log", { type: "text/plain" }))).rejects.toThrow("256 KB");
    await expect(readAttachment(new File([png], "app.exe", { type: "application/x-msdownload" }))).rejects.toThrow(
      '"app.exe" is not an image (PNG, JPEG, GIF, WebP) or a text file.',
    );
    const many = Array.from({ length: MAX_ATTACHMENTS + 2 }, (_, i) => new File(["x"], `${i}.txt`, { type: "text/plain" }));
    const added = await addAttachments([], many);
    expect(added.attachments).toHaveLength(MAX_ATTACHMENTS);
    expect(added.error).toBe("A message takes at most 10 files.");
  });
});
