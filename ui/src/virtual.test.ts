import { describe, expect, it } from "vitest";
import { prefixSums, rowRanges, type Segment, visibleWindow, windowSegments } from "./virtual";

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

describe("rowRanges", () => {
  const count = (ranges: Array<[number, number]>) => ranges.reduce((n, [s, e]) => n + e - s, 0);

  it("renders the rows in view and the overscan on each side, no more", () => {
    // 34 px rows, a 680 px view scrolled to row 100: rows 100..119 are in view.
    expect(rowRanges(1000, 34, 3400, 680, 0, null)).toEqual([[100, 120]]);
    expect(rowRanges(1000, 34, 3400, 680, 5, null)).toEqual([[95, 125]]);
    // A row cut by the view's bottom edge is rendered.
    expect(rowRanges(1000, 34, 3400, 690, 0, null)).toEqual([[100, 121]]);
  });

  it("stays inside the list at its ends and for short lists", () => {
    expect(rowRanges(1000, 34, 0, 680, 10, null)).toEqual([[0, 30]]);
    expect(rowRanges(1000, 34, 34_000 - 680, 680, 10, null)).toEqual([[970, 1000]]);
    expect(rowRanges(5, 34, 0, 680, 10, null)).toEqual([[0, 5]]);
    expect(rowRanges(0, 34, 0, 680, 10, null)).toEqual([]);
    // A scroll position past the end (a list that just got shorter) still renders its last row.
    expect(rowRanges(5, 34, 10_000, 680, 0, null)).toEqual([[4, 5]]);
    // No height measured yet, or a hidden list: at least one row, never a division by zero.
    expect(count(rowRanges(50, 0, 0, 0, 0, null))).toBeGreaterThan(0);
  });

  it("keeps the focused row wherever the list is scrolled", () => {
    expect(rowRanges(1000, 34, 3400, 680, 0, 3)).toEqual([
      [3, 4],
      [100, 120],
    ]);
    expect(rowRanges(1000, 34, 3400, 680, 0, 500)).toEqual([
      [100, 120],
      [500, 501],
    ]);
    // Next to the window or inside it: one range.
    expect(rowRanges(1000, 34, 3400, 680, 0, 99)).toEqual([[99, 120]]);
    expect(rowRanges(1000, 34, 3400, 680, 0, 120)).toEqual([[100, 121]]);
    expect(rowRanges(1000, 34, 3400, 680, 0, 110)).toEqual([[100, 120]]);
    // A kept row the list no longer holds is ignored.
    expect(rowRanges(10, 34, 0, 680, 0, 40)).toEqual([[0, 10]]);
  });
});

describe("windowSegments", () => {
  const heights = Array.from({ length: 10 }, (_, i) => 10 * (i + 1));
  const total = heights.reduce((a, b) => a + b, 0);
  const drawnHeight = (segments: Segment[]) => segments.reduce((sum, s) => sum + (s.kind === "gap" ? s.height : (heights[s.index] ?? 0)), 0);

  it("is the window alone, between its two spaces, when nothing is kept", () => {
    const w = { start: 3, end: 5, before: 60, after: total - 150 };
    const s = windowSegments(heights, w, []);
    expect(s).toEqual([
      { kind: "gap", height: 60, before: 3 },
      { kind: "item", index: 3, top: 60 },
      { kind: "item", index: 4, top: 100 },
      { kind: "gap", height: total - 150, before: null },
    ]);
  });

  it("draws a kept item above and below the window where it lies, the spaces adding up to the list", () => {
    const w = { start: 4, end: 6, before: 100, after: total - 210 };
    const s = windowSegments(heights, w, [1, 8, 5, 1]);
    expect(s.filter((x) => x.kind === "item").map((x) => (x.kind === "item" ? x.index : -1))).toEqual([1, 4, 5, 8]);
    expect(s).toEqual([
      { kind: "gap", height: 10, before: 1 },
      { kind: "item", index: 1, top: 10 },
      { kind: "gap", height: 30 + 40, before: 4 },
      { kind: "item", index: 4, top: 100 },
      { kind: "item", index: 5, top: 150 },
      { kind: "gap", height: 70 + 80, before: 8 },
      { kind: "item", index: 8, top: 360 },
      { kind: "gap", height: 100, before: null },
    ]);
    expect(drawnHeight(s)).toBe(total);
  });

  it("ignores kept indices that are not items of the list", () => {
    const w = { start: 0, end: 2, before: 0, after: total - 30 };
    const s = windowSegments(heights, w, [-1, 10, 2.5]);
    expect(s.filter((x) => x.kind === "item")).toHaveLength(2);
    expect(drawnHeight(s)).toBe(total);
  });
});
