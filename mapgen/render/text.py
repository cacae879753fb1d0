"""Text drawn with PIL on top of the rasterised map (much faster than matplotlib text, same DejaVu Sans font).

Text in another script is set in a system font for that script (:data:`SCRIPT_FONTS`: Noto Sans Devanagari from
Debian ``fonts-noto-core``, Noto Sans CJK SC from ``fonts-noto-cjk``) and shaped by Pillow's raqm layout
(HarfBuzz: Devanagari conjuncts and vowel signs such as ि placed before their consonant). Latin text keeps
DejaVu Sans, so English maps are unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from mapgen.caches import memo
from mapgen.render.fonts import FAMILIES, FONT_FILE, LATIN
from mapgen.render.style import MapStyle, load_style

#: script -> (first and last code point of its Unicode block(s), font file, face index in a collection, apt package)
SCRIPT_FONTS: dict[str, tuple[tuple[tuple[int, int], ...], str, int, str]] = {
    "devanagari": (((0x0900, 0x097F), (0xA8E0, 0xA8FF)),
                   "/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf", 0, "fonts-noto-core"),
    "han": (((0x3000, 0x303F), (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0xFF00, 0xFFEF)),
            "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2, "fonts-noto-cjk"),
}


#: The family names of those fonts (and of DejaVu Sans) for a browser: the plotly renderer asks Chromium for the
#: font PIL measured, so both renderers set a text in the same face at the same size (:func:`css_font`).
SCRIPT_FAMILIES = {"latin": "DejaVu Sans", "devanagari": "Noto Sans Devanagari", "han": "Noto Sans CJK SC"}


class MissingFontError(RuntimeError):
    """A label needs a script whose system font is not installed."""


def script_of(text: str) -> str:
    """``devanagari``, ``han`` or ``latin``: the first non-Latin script a text uses (``latin`` when none)."""
    for ch in text:
        point = ord(ch)
        if point < 0x0900:
            continue
        for script, (blocks, *_rest) in SCRIPT_FONTS.items():
            if any(lo <= point <= hi for lo, hi in blocks):
                return script
    return "latin"


@dataclass(frozen=True)
class TextItem:
    """One piece of text: anchor point in pixels, PIL anchor (``mm`` centre, ``lm`` left-middle, ``mt`` …)."""

    x: float
    y: float
    text: str
    size_px: float
    color: str = "#000000"
    anchor: str = "mm"
    background: str | None = None
    frame: str | None = None  # outline of the background box
    halo: str | None = None  # a one-pixel outline around the glyphs (contrast on any fill)
    family: str = LATIN  # Latin font family (:data:`FAMILIES`); other scripts keep their script font


#: Text whose height must reach a Latin capital's at the same font size (:func:`script_size`): a Devanagari word
#: of body letters under the headline, with no vowel sign above or below (the shortest a Hindi name is drawn).
#: CJK glyphs fill the em and are already taller than Latin capitals.
BODY_TEXT = {"devanagari": "असम"}


@memo(1024)
def font(size_px: float, script: str = "latin", family: str = LATIN) -> ImageFont.FreeTypeFont:
    """The font of a script at a pixel size (cached): ``family`` (DejaVu Sans) for Latin, else
    :data:`SCRIPT_FONTS` at :func:`script_size` (so a Devanagari label is as tall as a code at the same size)."""
    if script == "latin":
        return ImageFont.truetype(str(family_file(family)), size=max(1, round(size_px)))
    return _script_font(script, script_size(max(1, round(size_px)), script))


def family_file(family: str) -> Path:
    """The font file of a Latin family; an unknown or missing one says what to choose or install."""
    path = FAMILIES.get(family)
    if path is None:
        raise MissingFontError(f"Unknown font family {family!r}; choose one of {', '.join(FAMILIES)}.")
    if not path.is_file():
        raise MissingFontError(f"font family {family!r} needs {path}; install fonts-dejavu and fonts-noto-core.")
    return path


def _script_font(script: str, size: int) -> ImageFont.FreeTypeFont:
    _blocks, path, index, package = SCRIPT_FONTS[script]
    if not Path(path).is_file():
        raise MissingFontError(f"drawing {script} text needs the font {path}; install it with "
                               f"`apt-get install {package}` (or draw labels as codes: labels: codes)")
    return ImageFont.truetype(path, size=size, index=index, layout_engine=ImageFont.Layout.RAQM)


@memo(1024)
def script_size(size: int, script: str) -> int:
    """The whole pixel size a script's text is set at for a Latin size: the smallest from ``size`` up at which
    :data:`BODY_TEXT` is as tall as a Latin ``H`` (Devanagari: 16 → 17 px; its body is shorter than a capital,
    and the legibility audit wants 12 px labels at 800×600, issue 14); ``size`` for other scripts."""
    body = BODY_TEXT.get(script)
    if body is None:
        return size
    _, top, _, bottom = ImageFont.truetype(str(FONT_FILE), size=size).getbbox("H")
    out = size
    while out < 2 * size:
        _, t, _, b = _script_font(script, out).getbbox(body)
        if b - t >= bottom - top:
            break
        out += 1
    return out


def css_font(text: str, size_px: float, family: str = LATIN) -> tuple[str, int]:
    """(family, whole pixel size) a browser sets ``text`` in, as :func:`font_for` does (Devanagari one size up);
    Latin text in ``family`` (a bold family is asked for as its regular name: see :func:`css_weight`)."""
    script, size = script_of(text), max(1, round(size_px))
    if script == "latin":
        return family.removesuffix(" Bold"), size
    return SCRIPT_FAMILIES[script], script_size(size, script)


def css_weight(family: str) -> str:
    """``bold`` for a bold family of :data:`FAMILIES`, else ``normal``."""
    return "bold" if family.endswith(" Bold") else "normal"


def font_for(text: str, size_px: float, family: str = LATIN) -> ImageFont.FreeTypeFont:
    """The font ``text`` is set in (by its script; Latin text in ``family``) at a pixel size."""
    return font(size_px, script_of(text), family)


@memo(1024)
def cap_height_size(cap_px: float) -> float:
    """The smallest whole pixel size at which an upper-case ``H`` is at least ``cap_px`` tall (its rendered glyph
    box; hinting snaps cap heights to whole pixels)."""
    size = max(1, int(cap_px))
    while True:
        _, top, _, bottom = font(size).getbbox("H")
        if bottom - top >= cap_px:
            return float(size)
        size += 1


@memo(8192)
def text_size(text: str, size_px: float, family: str = LATIN) -> tuple[float, float]:
    """Width and height in pixels of ``text`` (ink box)."""
    left, top, right, bottom = font_for(text, size_px, family).getbbox(text)
    return float(right - left), float(bottom - top)


@memo(16384)
def glyph_box(text: str, size_px: float, family: str = LATIN, anchor: str = "la") -> tuple[float, float, float, float]:
    """PIL's glyph box of ``text`` relative to its ``anchor`` point (kept: maps measure the same texts again)."""
    return font_for(text, size_px, family).getbbox(text, anchor=anchor)


def text_box(item: TextItem) -> tuple[float, float, float, float]:
    """Pixel box (x1, y1, x2, y2) the text covers."""
    left, top, right, bottom = glyph_box(item.text, item.size_px, item.family, item.anchor)
    return (item.x + left, item.y + top, item.x + right, item.y + bottom)


def draw_texts(draw: ImageDraw.ImageDraw, items: list[TextItem], image: Image.Image | None = None) -> None:
    """Draw every text item (with an optional padded background box, its frame, and a glyph halo). Given the
    ``image`` behind ``draw``, haloed texts are pasted from cached glyph masks (same pixels, much faster)."""
    for item in items:
        if item.background:
            x1, y1, x2, y2 = text_box(item)
            draw.rectangle((x1 - 2, y1 - 2, x2 + 2, y2 + 2), fill=item.background, outline=item.frame)
        if item.halo and image is not None:
            _paste_halo_text(image, item, item.halo)
        elif image is not None and "\n" not in item.text:
            _paste_text(image, item)
        else:
            draw.text((item.x, item.y), item.text, font=font_for(item.text, item.size_px, item.family), fill=item.color,
                      anchor=item.anchor, stroke_width=1 if item.halo else 0, stroke_fill=item.halo)


def _paste_halo_text(image: Image.Image, item: TextItem, halo_color: str) -> None:
    ix, iy = math.floor(item.x), math.floor(item.y)
    halo, glyphs, ox, oy = _halo_masks(item.text, item.size_px, item.anchor, item.x - ix, item.y - iy)
    image.paste(halo_color, (ix + ox, iy + oy), halo)
    image.paste(item.color, (ix + ox, iy + oy), glyphs)


def _paste_text(image: Image.Image, item: TextItem) -> None:
    ix, iy = math.floor(item.x), math.floor(item.y)
    glyphs, ox, oy = _glyph_mask(item.text, item.size_px, item.family, item.anchor, item.x - ix, item.y - iy)
    image.paste(item.color, (ix + ox, iy + oy), glyphs)


@memo(4096)
def _glyph_mask(text: str, size_px: float, family: str, anchor: str, fx: float, fy: float):
    """The mask of a text's glyphs drawn at the sub-pixel offset ``fx, fy`` (as PIL would draw them in place)
    and its offset from the anchor pixel: pasting a colour through it draws the text's very pixels."""
    f = font_for(text, size_px, family)
    left, top, right, bottom = f.getbbox(text, anchor=anchor)
    ox, oy = math.floor(left) - 2, math.floor(top) - 2
    glyphs = Image.new("L", (math.ceil(right) - ox + 3, math.ceil(bottom) - oy + 3), 0)
    ImageDraw.Draw(glyphs).text((fx - ox, fy - oy), text, font=f, fill=255, anchor=anchor)
    return glyphs, ox, oy


@memo(4096)
def _halo_masks(text: str, size_px: float, anchor: str, fx: float, fy: float):
    """Masks of a text with its one-pixel halo and of its glyphs alone, drawn at the sub-pixel offset ``fx, fy``
    (as PIL would draw them in place), with the masks' offset from the anchor pixel."""
    f = font_for(text, size_px)
    left, top, right, bottom = f.getbbox(text, anchor=anchor, stroke_width=1)
    ox, oy = math.floor(left) - 2, math.floor(top) - 2
    size = (math.ceil(right) - ox + 3, math.ceil(bottom) - oy + 3)
    halo, glyphs = Image.new("L", size, 0), Image.new("L", size, 0)
    xy = (fx - ox, fy - oy)
    ImageDraw.Draw(halo).text(xy, text, font=f, fill=255, anchor=anchor, stroke_width=1, stroke_fill=255)
    ImageDraw.Draw(glyphs).text(xy, text, font=f, fill=255, anchor=anchor)
    return halo, glyphs, ox, oy


def title_items(title: str, box, style: MapStyle | None = None) -> list[TextItem]:
    """The title in its box, aligned as the style says (centred by default): one line at the band's size when it
    fits, else two balanced lines (the font shrinks to fit, down to 9 px); an ellipsis only when even that cannot
    hold it."""
    look = (style or _default_style()).title
    family = (style or _default_style()).fonts.title
    size = max(look.min_size, min(look.size * max(1.0, box.width / 800), box.height * 0.45))
    room = box.width - (look.inset if look.align == "center" else 2 * look.inset)
    place = _title_place(box, look.align, look.inset)

    def item(y: float, text: str, at: float) -> TextItem:
        return TextItem(place[0], y, text, at, look.color, place[1], family=family)

    if text_size(title, size, family)[0] <= room:
        return [item(box.top + box.height / 2, title, size)]
    lines = [line for line in two_lines(title) if line]
    if len(lines) == 1:
        return [item(box.top + box.height / 2, _ellipsis(title, size, room, family), size)]
    size = min(size, box.height / 2.5)
    while size > 9 and max(text_size(line, size, family)[0] for line in lines) > room:
        size -= 0.5
    lines = [_ellipsis(line, size, room, family) for line in lines]
    step, cy = box.height / 4, box.top + box.height / 2
    return [item(cy - step, lines[0], size), item(cy + step, lines[1], size)]


def _title_place(box, align: str, inset: float) -> tuple[float, str]:
    """x and PIL anchor of the title lines for an alignment."""
    if align == "left":
        return box.left + inset, "lm"
    if align == "right":
        return box.left + box.width - inset, "rm"
    return box.left + box.width / 2, "mm"


def _default_style() -> MapStyle:
    return load_style()


#: Full-name region labels (``--names``) may shrink to this share of the code size (10 px capitals at 800×600)…
NAME_MIN_SHARE = 5 / 6
#: … in steps of one pixel of font size; their two lines sit this many font sizes apart.
NAME_LINE_STEP = 1.2


@dataclass(frozen=True)
class NameLayout:
    """One way to set a region's full name: its lines, font size, the lines' centres relative to the block's
    centre (y offsets) and the glyph box of the whole block relative to its centre (left, top, right, bottom)."""

    kind: str  # "one line", "smaller type", "two lines" (or "smaller, two lines")
    lines: tuple[str, ...]
    size_px: float
    offsets: tuple[float, ...]
    ink: tuple[float, float, float, float]


def name_layouts(name: str, size_px: float, family: str = LATIN) -> list[NameLayout]:
    """The ways to set ``name`` (in ``family``) as a region label, best first: at the codes' ``size_px`` on one line, then on two
    balanced lines, then each one pixel of font size smaller down to :data:`NAME_MIN_SHARE` of it. A smaller
    size is offered only while the name's glyph box stays as tall as a code's capitals at ``size_px`` (the
    height the legibility audit measures), so a name never reads smaller than the codes by that rule."""
    cap = text_size("H", size_px, family)[1]
    split = tuple(line for line in two_lines(name) if line)
    options = [(name,), split] if len(split) == 2 else [(name,)]
    out = []
    size = size_px
    while size >= NAME_MIN_SHARE * size_px:
        for lines in options:
            layout = _layout(lines, size, size < size_px, family)
            if layout.ink[3] - layout.ink[1] >= cap:
                out.append(layout)
        size -= 1
    return out


def _layout(lines: tuple[str, ...], size: float, smaller: bool, family: str = LATIN) -> NameLayout:
    step = NAME_LINE_STEP * size
    offsets = (0.0,) if len(lines) == 1 else (-step / 2, step / 2)
    boxes = [glyph_box(line, size, family, "mm") for line in lines]
    ink = (min(b[0] for b in boxes), min(b[1] + dy for b, dy in zip(boxes, offsets)),
           max(b[2] for b in boxes), max(b[3] + dy for b, dy in zip(boxes, offsets)))
    kind = {(1, False): "one line", (1, True): "smaller type", (2, False): "two lines",
            (2, True): "smaller, two lines"}[(len(lines), smaller)]
    return NameLayout(kind, lines, size, offsets, (float(ink[0]), float(ink[1]), float(ink[2]), float(ink[3])))


def two_lines(text: str) -> list[str]:
    """``text`` split at the space that best balances the two lines' lengths."""
    words = text.split()
    if len(words) < 2:
        return [text, ""]
    cut = min(range(1, len(words)), key=lambda i: abs(len(" ".join(words[:i])) - len(" ".join(words[i:]))))
    return [" ".join(words[:cut]), " ".join(words[cut:])]


def _ellipsis(text: str, size: float, room: float, family: str = LATIN) -> str:
    while len(text) > 8 and text_size(text, size, family)[0] > room:
        text = text.rstrip("…")[:-1].rstrip() + "…"
    return text
