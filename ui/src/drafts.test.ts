import { describe, expect, it } from "vitest";
import { offerFiles, takeOfferedFiles } from "./drafts";
import type { Attachment } from "./types";

const file = (name: string): Attachment => ({ name, kind: "text", mediaType: "text/plain", data: name });

describe("files offered to a composer", () => {
  it("wait for a composer that is not open and go to the open one at once", () => {
    offerFiles(3, [file("a")]);
    offerFiles(3, [file("b")]);
    offerFiles(4, [file("other chat")]);
    const taken: string[][] = [];
    const stop = takeOfferedFiles(3, (files) => taken.push(files.map((f) => f.name)));
    expect(taken).toEqual([["a", "b"]]);
    offerFiles(3, [file("c")]);
    expect(taken).toEqual([["a", "b"], ["c"]]);
    stop();
    offerFiles(3, [file("d")]);
    expect(taken).toEqual([["a", "b"], ["c"]]);
    // The next composer of the chat finds what came while none was open; the other chat's stay.
    takeOfferedFiles(3, (files) => taken.push(files.map((f) => f.name)))();
    expect(taken.at(-1)).toEqual(["d"]);
    const other: string[][] = [];
    takeOfferedFiles(4, (files) => other.push(files.map((f) => f.name)))();
    expect(other).toEqual([["other chat"]]);
  });
});
