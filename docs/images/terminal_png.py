"""Draw a terminal screen captured with `tmux capture-pane -e -p` as a PNG (for docs/editors.md's picture).

    python docs/images/terminal_png.py SCREEN.ansi OUT.png [--title TEXT]

Each character cell is drawn as tmux reported it: 24-bit and 256-colour foreground and
background, bold, reverse and underline (SGR codes); nothing is retouched. Uses Pillow,
which comes with matplotlib, and the DejaVu Sans Mono font.
"""

from __future__ import annotations

import argparse
import re

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
FG, BG = (215, 215, 215), (30, 32, 38)
BASIC = [(0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16), (36, 114, 200), (188, 63, 188), (17, 168, 205),
         (229, 229, 229), (102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67), (59, 142, 234),
         (214, 112, 214), (41, 184, 219), (255, 255, 255)]
SGR = re.compile(r"\x1b\[([0-9;:]*)m")


def _256(n: int) -> tuple:
    if n < 16:
        return BASIC[n]
    if n < 232:
        n -= 16
        return tuple(0 if v == 0 else 55 + 40 * v for v in (n // 36, n // 6 % 6, n % 6))
    v = 8 + 10 * (n - 232)
    return (v, v, v)


def cells(text: str) -> list[list[tuple]]:
    """Rows of (char, fg, bg, bold, underline) from the captured text."""
    rows, fg, bg, bold, under, rev = [], None, None, False, False, False
    for line in text.split("\n"):
        row, pos = [], 0
        for m in SGR.finditer(line + "\x1b[m"):
            for ch in line[pos:m.start()]:
                f, b = (bg or BG, fg or FG) if rev else (fg or FG, bg or BG)
                row.append((ch, f, b, bold, under))
            pos = m.end()
            codes = [c.split(":")[0] for c in m.group(1).split(";")] if m.group(1) else ["0"]
            i = 0
            while i < len(codes):
                c = int(codes[i] or 0)
                if c == 0:
                    fg, bg, bold, under, rev = None, None, False, False, False
                elif c == 1:
                    bold = True
                elif c == 4:
                    under = True
                elif c == 7:
                    rev = True
                elif c == 22:
                    bold = False
                elif c == 24:
                    under = False
                elif c == 27:
                    rev = False
                elif c in (38, 48) and i + 1 < len(codes):
                    if codes[i + 1] == "2":
                        color = tuple(int(x) for x in codes[i + 2:i + 5])
                        i += 4
                    else:
                        color = _256(int(codes[i + 2]))
                        i += 2
                    fg, bg = (color, bg) if c == 38 else (fg, color)
                elif c == 39:
                    fg = None
                elif c == 49:
                    bg = None
                elif 30 <= c <= 37 or 90 <= c <= 97:
                    fg = BASIC[c - 30 if c < 90 else c - 82]
                elif 40 <= c <= 47 or 100 <= c <= 107:
                    bg = BASIC[c - 40 if c < 100 else c - 92]
                i += 1
        rows.append(row)
    while rows and not rows[-1]:
        rows.pop()
    return rows


def draw(rows: list[list[tuple]], out: str, title: str, size: int = 18) -> None:
    font, bold = ImageFont.truetype(FONT, size), ImageFont.truetype(BOLD, size)
    cw = round(font.getlength("M"))
    ch = round(size * 1.35)
    width = max(len(r) for r in rows)
    top = ch + 16 if title else 0
    img = Image.new("RGB", (width * cw + 24, len(rows) * ch + top + 12), BG)
    d = ImageDraw.Draw(img)
    if title:
        d.rectangle([0, 0, img.width, top - 6], fill=(48, 50, 58))
        d.text((12, 6), title, font=font, fill=(200, 200, 200))
    for y, row in enumerate(rows):
        for x, (c, fg, bg, b, u) in enumerate(row):
            px, py = 12 + x * cw, top + y * ch
            if bg != BG:
                d.rectangle([px, py, px + cw, py + ch], fill=bg)
            if c != " ":
                d.text((px, py + 2), c, font=bold if b else font, fill=fg)
            if u:
                d.line([px, py + ch - 3, px + cw, py + ch - 3], fill=fg, width=2)
    img.save(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("screen")
    ap.add_argument("out")
    ap.add_argument("--title", default="")
    args = ap.parse_args()
    with open(args.screen, encoding="utf-8") as fh:
        draw(cells(fh.read()), args.out, args.title)


if __name__ == "__main__":
    main()
