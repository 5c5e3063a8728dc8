import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FRAME_MARKDOWN_CHARS } from "../markdown";
import { Markdown } from "./Markdown";
import { unmount } from "./testRoot";

vi.mock("../api", () => ({ openExternal: vi.fn(() => Promise.resolve()), copyText: vi.fn(() => Promise.resolve()) }));

let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.replaceChildren(root);
});
afterEach(() => unmount(root));

const nextFrame = () => act(() => new Promise<void>((r) => requestAnimationFrame(() => r())));

/** A markdown text of about `chars` characters, different in each call. */
let made = 0;
function answer(chars: number): string {
  made += 1;
  const para = `## Part ${made}\n\nThe gate **checks** every call of answer ${made} before it runs.\n\n`;
  return para.repeat(Math.ceil(chars / para.length));
}

describe("markdown rendered a frame's worth at a time", () => {
  it("shows texts beyond a frame's allowance as written, and renders them on the next frames", async () => {
    const texts = [answer(FRAME_MARKDOWN_CHARS * 0.6), answer(FRAME_MARKDOWN_CHARS * 0.6), answer(FRAME_MARKDOWN_CHARS * 0.6)];
    await nextFrame();
    await act(() => {
      render(
        <div>
          {texts.map((t) => (
            <Markdown key={t} text={t} />
          ))}
        </div>,
        root,
      );
    });
    const waiting = () => root.querySelectorAll(".markdown--waiting").length;
    const headings = () => root.querySelectorAll(".markdown h2").length;
    // The first fits; the others wait, their text shown as written.
    expect(waiting()).toBe(2);
    expect(root.querySelector(".markdown--waiting")?.textContent).toContain("**checks**");
    expect(headings()).toBeGreaterThan(0);
    await nextFrame();
    expect(waiting()).toBe(1);
    await nextFrame();
    expect(waiting()).toBe(0);
    expect(root.textContent).not.toContain("**checks**");
  });

  it("shows a waiting text as text: HTML in the model's answer is never parsed on the way", async () => {
    const hostile = `${answer(FRAME_MARKDOWN_CHARS)}\n\n<img src=x onerror="alert(1)"><script>alert(2)</script>`;
    await nextFrame();
    await act(() => {
      render(
        <div>
          <Markdown text={answer(FRAME_MARKDOWN_CHARS)} />
          <Markdown text={hostile} />
        </div>,
        root,
      );
    });
    const waiting = root.querySelector(".markdown--waiting");
    expect(waiting?.textContent).toContain('<img src=x onerror="alert(1)">');
    expect(root.querySelector("img, script")).toBeNull();
    await nextFrame();
    expect(root.querySelector(".markdown--waiting")).toBeNull();
    expect(root.querySelector("img, script")).toBeNull();
    expect(root.textContent).toContain("<script>alert(2)</script>");
  });

  it("renders a text it rendered before at once, whatever the frame has spent", async () => {
    const seen = answer(FRAME_MARKDOWN_CHARS * 0.8);
    await nextFrame();
    await act(() => {
      render(<Markdown text={seen} />, root);
    });
    await unmount(root);
    await act(() => {
      render(
        <div>
          <Markdown text={answer(FRAME_MARKDOWN_CHARS * 0.8)} />
          <Markdown text={seen} />
        </div>,
        root,
      );
    });
    // Whether or not the new text fits this frame, the one rendered before never waits.
    const boxes = root.querySelectorAll(".markdown");
    expect(boxes[1]?.classList.contains("markdown--waiting")).toBe(false);
    expect(boxes[1]?.querySelector("h2")).not.toBeNull();
  });

  it("never holds back an answer being streamed", async () => {
    await nextFrame();
    await act(() => {
      render(
        <div>
          <Markdown text={answer(FRAME_MARKDOWN_CHARS * 2)} />
          <Markdown text={answer(FRAME_MARKDOWN_CHARS * 2)} />
          <Markdown text={answer(FRAME_MARKDOWN_CHARS * 2)} streaming />
        </div>,
        root,
      );
    });
    const boxes = root.querySelectorAll(".markdown");
    // The first spends the frame's allowance, the second waits, the streamed one renders.
    expect(boxes[1]?.classList.contains("markdown--waiting")).toBe(true);
    expect(boxes[2]?.classList.contains("markdown--waiting")).toBe(false);
    expect(boxes[2]?.querySelector("h2")).not.toBeNull();
  });
});
