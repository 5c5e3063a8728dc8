import { describe, expect, it } from "vitest";
import { prefixSums, visibleWindow } from "./virtual";

describe("visibleWindow", () => {
  const heights = Array.from({ length: 5000 }, (_, i) => (i % 2 ? 100 : 50));

  it("renders only what intersects the viewport plus the overscan", () => {
    const w = visibleWindow(heights, 0, 600, 0);
    expect(w.start).toBe(0);
    expect(w.end).toBe(9); // 50+100+… reaches 600 inside item 8
    expect(w.before).toBe(0);
    expect(w.after).toBe(prefixSums(heights)[5000]! - prefixSums(heights)[9]!);
  });

  it("keeps the spacers and the rendered items equal to the whole height anywhere", () => {
    const total = prefixSums(heights)[5000]!;
    for (const top of [0, 1234, 187_500, total - 600]) {
      const w = visibleWindow(heights, top, 600, 300);
      const rendered = heights.slice(w.start, w.end).reduce((a, b) => a + b, 0);
      expect(w.before + rendered + w.after).toBe(total);
      expect(w.end - w.start).toBeLessThan(30);
      expect(w.before).toBeLessThanOrEqual(Math.max(0, top - 300));
    }
  });

  it("shows the last items at the bottom and handles empty and tiny lists", () => {
    const total = prefixSums(heights)[5000]!;
    const w = visibleWindow(heights, total - 600, 600, 0);
    expect(w.end).toBe(5000);
    expect(w.after).toBe(0);
    expect(visibleWindow([], 0, 600, 100)).toEqual({ start: 0, end: 0, before: 0, after: 0 });
    expect(visibleWindow([10], 0, 600, 100)).toEqual({ start: 0, end: 1, before: 0, after: 0 });
  });
});
