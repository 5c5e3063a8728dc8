import { describe, expect, it } from "vitest";
import { afterNextPaint } from "./frames";

const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));

describe("afterNextPaint", () => {
  it("calls back after the next frame, not before it", async () => {
    const order: string[] = [];
    afterNextPaint(() => order.push("painted"));
    requestAnimationFrame(() => order.push("frame"));
    expect(order).toEqual([]);
    await frame();
    await frame();
    expect(order).toEqual(["frame", "painted"]);
  });

  it("calls nothing once cancelled", async () => {
    let called = false;
    const cancel = afterNextPaint(() => {
      called = true;
    });
    cancel();
    await frame();
    await frame();
    expect(called).toBe(false);
  });
});
