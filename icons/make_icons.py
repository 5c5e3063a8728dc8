#!/usr/bin/env python3
"""Generate Tollgate's app icons as RGBA PNGs using only the standard library.

Design: a deep-teal (#0f766e) rounded square with transparent corners and a
white "gate" glyph (two posts joined by a horizontal bar). Edges are
anti-aliased analytically from signed distance fields.

Re-run from anywhere:  python3 icons/make_icons.py
"""
import os
import struct
import zlib

TEAL = (0x0F, 0x76, 0x6E)
WHITE = (0xFF, 0xFF, 0xFF)

SIZES = {
    "32x32.png": 32,
    "128x128.png": 128,
    "128x128@2x.png": 256,
    "icon.png": 512,
}


def sd_round_box(px, py, cx, cy, hw, hh, r):
    """Signed distance from (px, py) to a rounded box centred at (cx, cy)."""
    qx = abs(px - cx) - (hw - r)
    qy = abs(py - cy) - (hh - r)
    ox = max(qx, 0.0)
    oy = max(qy, 0.0)
    outside = (ox * ox + oy * oy) ** 0.5
    inside = min(max(qx, qy), 0.0)
    return outside + inside - r


def coverage(d):
    """Map a signed distance (in pixels) to pixel coverage in [0, 1]."""
    c = 0.5 - d
    return 0.0 if c <= 0.0 else 1.0 if c >= 1.0 else c


def render(size):
    s = float(size)
    # Background rounded square (small margin so it does not touch the edge).
    margin = max(1.0, s * 0.04)
    bg = (s / 2, s / 2, s / 2 - margin, s / 2 - margin, s * 0.22)

    # Gate glyph, in units of the canvas size: two posts under a lintel that
    # overhangs them on both sides, plus a thinner tie bar between the posts
    # (reads as a gate rather than a letter H or pi).
    post_hw = s * 0.055          # half width of a post
    post_top = s * 0.30
    post_bot = s * 0.76
    post_hh = (post_bot - post_top) / 2
    post_cy = (post_top + post_bot) / 2
    post_r = post_hw * 0.5
    left_cx = s * 0.335
    right_cx = s * 0.665
    bar_hh = s * 0.05
    bar_cy = s * 0.29
    bar_hw = s * 0.27
    bar_r = bar_hh * 0.7
    shapes = [
        (left_cx, post_cy, post_hw, post_hh, post_r),
        (right_cx, post_cy, post_hw, post_hh, post_r),
        (s / 2, bar_cy, bar_hw, bar_hh, bar_r),
        (s / 2, s * 0.46, right_cx - s / 2, s * 0.032, s * 0.01),
    ]

    rows = []
    for y in range(size):
        py = y + 0.5
        row = bytearray([0])  # filter type 0 (None)
        for x in range(size):
            px = x + 0.5
            a_bg = coverage(sd_round_box(px, py, *bg))
            if a_bg <= 0.0:
                row += b"\x00\x00\x00\x00"
                continue
            d_glyph = min(sd_round_box(px, py, *sh) for sh in shapes)
            g = coverage(d_glyph)
            r = TEAL[0] + (WHITE[0] - TEAL[0]) * g
            gr = TEAL[1] + (WHITE[1] - TEAL[1]) * g
            b = TEAL[2] + (WHITE[2] - TEAL[2]) * g
            row += bytes((round(r), round(gr), round(b), round(255 * a_bg)))
        rows.append(bytes(row))
    return b"".join(rows)


def png_chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def write_png(path, size, raw):
    ihdr = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    data = (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", ihdr)
        + png_chunk(b"IDAT", zlib.compress(raw, 9))
        + png_chunk(b"IEND", b"")
    )
    with open(path, "wb") as f:
        f.write(data)


def main():
    out_dir = os.path.dirname(os.path.abspath(__file__))
    for name, size in SIZES.items():
        path = os.path.join(out_dir, name)
        write_png(path, size, render(size))
        print(f"wrote {path} ({size}x{size})")


if __name__ == "__main__":
    main()
