"""Region fills, hatches and borders composited with numpy, byte-identical to Agg drawing them path by path.

Agg draws a region collection path by path: the face, then the hatch pattern, then the border stroke, each
blended with the coverage its rasteriser computes. That coverage depends only on the path, the page and the
stroke width, never on the colours, so it is taken once per figure (each path drawn alone, in white on a
transparent page: the alpha channel is the coverage) and every later map only blends its colours with
matplotlib's Agg arithmetic (``fixed_comp_op_adaptor_rgba8_plain``: a full-coverage opaque colour is copied,
anything else blended in integers). The hatch tile is taken the same way, once per pattern, from a page-wide
hatched rectangle (Agg repeats its tile from the page's origin). A hatched map thus no longer re-renders the
hatch tile once per region, which was most of its cost. The page beneath must be opaque (the renderer checks).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.colors import to_rgba_array
from matplotlib.path import Path

from mapgen.caches import memo

#: Colour of a layer: an (r, g, b) colour, or per pixel (n, 3) colours, and its alpha (a number or per pixel).
Rgb = np.ndarray


@dataclass(frozen=True)
class Cover:
    """Where one drawing step covers the page: flat pixel indices fully covered, and partly covered with their
    coverage (1-254)."""

    full: np.ndarray
    part: np.ndarray
    alpha: np.ndarray

    @classmethod
    def of(cls, alpha: np.ndarray, box: tuple[int, int, int, int], width: int) -> Cover:
        """The cover of the coverage ``alpha`` read in the pixel ``box`` (x0, y0, x1, y1) of a page ``width``
        pixels wide."""
        x0, y0, x1, y1 = box
        rows, cols = np.nonzero(alpha)
        flat = (rows + y0) * width + cols + x0
        values = alpha[rows, cols]
        full = values == 255
        return cls(flat[full], flat[~full], values[~full].astype(np.int32))

    @cached_property
    def every(self) -> tuple[np.ndarray, np.ndarray]:
        """Every covered pixel and its coverage."""
        idx = np.concatenate([self.full, self.part])
        return idx, np.concatenate([np.full(len(self.full), 255, np.int32), self.alpha])


def mult_cover(alpha: np.ndarray, cover: np.ndarray) -> np.ndarray:
    """Agg's ``rgba8::multiply``: ``alpha * cover / 255`` rounded as Agg does."""
    t = alpha * cover + 128
    return ((t >> 8) + t) >> 8


def pack(rgb: np.ndarray) -> np.ndarray:
    """Opaque (..., 3) int colours as the uint32 of their RGBA bytes (little-endian, as the Agg buffer is)."""
    rgb = np.asarray(rgb, dtype=np.uint32)
    return rgb[..., 0] | (rgb[..., 1] << 8) | (rgb[..., 2] << 16) | np.uint32(0xFF000000)


def unpack(words: np.ndarray) -> np.ndarray:
    """uint32 RGBA words as (n, 3) int32 colours."""
    return words.view(np.uint8).reshape(-1, 4)[:, :3].astype(np.int32)


def blend(pixels: np.ndarray, idx: np.ndarray, rgb: np.ndarray, alpha: np.ndarray) -> None:
    """Blend ``rgb`` at ``alpha`` (each 1-255) over the opaque ``pixels`` (the page as uint32 words) at ``idx``:
    matplotlib's plain RGBA8 blender with an opaque destination (its alpha stays 255)."""
    p = unpack(pixels[idx]) * 255
    a = alpha[:, None]
    pixels[idx] = pack(((rgb * 256 - p) * a + p * 256) // (65280 + a))


def paint(pixels: np.ndarray, cover: Cover, rgb: np.ndarray) -> None:
    """Draw an opaque solid colour with ``cover`` (a face or a stroke): copied where fully covered."""
    pixels[cover.full] = pack(rgb)
    if len(cover.part):
        blend(pixels, cover.part, rgb, cover.alpha)


@dataclass(frozen=True)
class PatternStep:
    """A hatch pattern drawn over one path's face cover, reduced to what does not depend on the page beneath:
    on the fully covered pixels the pattern's words (their result over a face colour is kept per colour), on
    the partly covered ones the pixels it blends with their colours and alphas."""

    full: np.ndarray
    full_src: np.ndarray
    part: np.ndarray
    rgb: np.ndarray
    alpha: np.ndarray
    over: dict[int, np.ndarray] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, cover: Cover, tile: np.ndarray) -> PatternStep:
        """The step of ``tile`` (the page's pattern pixels as uint32 words) over ``cover``."""
        src = tile[cover.part]
        alpha = mult_cover((src >> 24).astype(np.int32), cover.alpha)
        keep = alpha > 0
        return cls(cover.full, tile[cover.full], cover.part[keep], unpack(src[keep]), alpha[keep])

    def on_face(self, face: np.ndarray) -> np.ndarray:
        """The fully covered pixels' words once the face ``face`` and then the pattern are drawn on them (no
        page shows through a full face)."""
        key = int(pack(face))
        if key not in self.over:
            src_a = (self.full_src >> 24).astype(np.int32)
            out = np.full(len(self.full), key, np.uint32)
            copy = src_a == 255
            out[copy] = self.full_src[copy]
            mixed = (src_a > 0) & ~copy
            p, a = face * 255, src_a[mixed][:, None]
            out[mixed] = pack(((unpack(self.full_src[mixed]) * 256 - p) * a + p * 256) // (65280 + a))
            self.over[key] = out
        return self.over[key]

    def draw(self, pixels: np.ndarray, face_cover: Cover, face: np.ndarray) -> None:
        """Draw the face (``face`` with ``face_cover``) and then this pattern: per pixel in Agg's order."""
        pixels[self.full] = self.on_face(face)
        if len(face_cover.part):
            blend(pixels, face_cover.part, face, face_cover.alpha)
        if len(self.part):
            blend(pixels, self.part, self.rgb, self.alpha)


@memo(512)
def rgb_of(color: Any) -> np.ndarray | None:
    """An opaque colour as int32 (r, g, b); None for a colour with transparency (Agg then draws it)."""
    rgba = to_rgba_array(color)[0]
    if rgba[3] != 1.0:
        return None
    return np.asarray([int(round(v * 255)) for v in rgba[:3]], dtype=np.int32)


@dataclass(frozen=True)
class Plan:
    """A fixed drawing order (faces and borders of every path) reduced to what shows: each pixel's last full
    copy, then the partial blends after it in rounds (one blend per pixel per round)."""

    copy_pix: np.ndarray
    copy_src: np.ndarray
    rounds: tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]

    @classmethod
    def of(cls, steps: list[tuple[Cover, int]], size: int) -> Plan:
        """The plan of ``steps`` (a cover and the index of its colour, in drawing order) on a page of ``size``
        pixels."""
        last = np.full(size, -1, np.int64)
        for k, (cover, _) in enumerate(steps):
            last[cover.full] = k
        src_of = np.asarray([src for _, src in steps], np.int64)
        copy_pix = np.flatnonzero(last >= 0)
        pix = np.concatenate([c.part for c, _ in steps])
        step = np.concatenate([np.full(len(c.part), k, np.int64) for k, (c, _) in enumerate(steps)])
        alpha = np.concatenate([c.alpha for c, _ in steps])
        keep = step > last[pix]
        pix, step, alpha = pix[keep], step[keep], alpha[keep]
        order = np.lexsort((step, pix))
        pix, step, alpha = pix[order], step[order], alpha[order]
        first = np.r_[True, pix[1:] != pix[:-1]]
        starts = np.flatnonzero(first)
        rank = np.arange(len(pix)) - np.repeat(starts, np.diff(np.r_[starts, len(pix)]))
        rounds = tuple((pix[rank == r], src_of[step[rank == r]], alpha[rank == r])
                       for r in range(int(rank.max()) + 1 if len(rank) else 0))
        return cls(copy_pix, src_of[last[copy_pix]], rounds)

    def draw(self, pixels: np.ndarray, colors: np.ndarray) -> None:
        """Draw with ``colors`` ((n, 3) int32, indexed by the steps' colour indices) over ``pixels``."""
        pixels[self.copy_pix] = pack(colors)[self.copy_src]
        for pix, src, alpha in self.rounds:
            blend(pixels, pix, colors[src], alpha)


class Compositor:
    """Per-figure coverage of every region path (face and stroke, per stroke width) and hatch tiles."""

    def __init__(self, fig: Any, ax: Any, paths: list[Path], outline: Path) -> None:
        self.fig, self.ax, self.paths, self.outline_path = fig, ax, paths, outline
        self.width, self.height = fig.canvas.get_width_height()
        self._covers: dict[tuple[str, float], list[Cover]] = {}
        self._outlines: dict[float, Cover] = {}
        self._plans: dict[tuple[float, float], Plan] = {}
        self._tiles: dict[tuple[str, str, float], np.ndarray] = {}
        self._patterns: dict[tuple[int, str, str, float], PatternStep] = {}
        self._alone: dict[tuple[str, float], dict[int, tuple[Cover, Cover]]] = {}

    def outline(self, width: float) -> Cover:
        """Coverage of the outline stroke at ``width`` points (drawn as the renderer's one-path outline
        collection is: a single path)."""
        if width not in self._outlines:
            self._outlines[width] = self._alpha_cover(PathCollection([self.outline_path], facecolors="none",
                                                                     edgecolors="#ffffff", linewidths=width, zorder=2))
        return self._outlines[width]

    def alone(self, index: int, width: float) -> tuple[Cover, Cover]:
        """Face and stroke coverage of path ``index`` drawn as a one-path, one-colour collection (a hatched map's
        unhatched class of one region): matplotlib draws that as a single simplified path."""
        key = ("alone", width)
        covers = self._alone.setdefault(key, {})
        if index not in covers:
            white, clear = "#ffffff", (0, 0, 0, 0)
            covers[index] = (self._alpha_cover(PathCollection([self.paths[index]], facecolors=white, edgecolors=clear,
                                                              linewidths=width, zorder=1)),
                             self._alpha_cover(PathCollection([self.paths[index]], facecolors=clear, edgecolors=white,
                                                              linewidths=width, zorder=1)))
        return covers[index]

    def _alpha_cover(self, coll: PathCollection) -> Cover:
        """The cover of ``coll`` drawn alone in white on a transparent page."""
        renderer = self.fig.canvas.get_renderer()
        renderer.clear()
        self.ax.add_collection(coll, autolim=False)
        coll.draw(renderer)
        coll.remove()
        return Cover.of(np.asarray(renderer.buffer_rgba())[:, :, 3], (0, 0, self.width, self.height), self.width)

    def pattern(self, index: int, pattern: str, color: str, width: float) -> PatternStep:
        """The step of hatch ``pattern`` over path ``index``'s face (hatched borders of ``width`` points)."""
        key = (index, pattern, color, width)
        if key not in self._patterns:
            self._patterns[key] = PatternStep.of(self.faces(width)[index], self.tile(pattern, color, width))
        return self._patterns[key]

    def faces(self, width: float) -> list[Cover]:
        """Face coverage of each path (taken with the borders' ``width``, as Agg snaps a path with it)."""
        return self._taken("face", width)

    def strokes(self, width: float) -> list[Cover]:
        """Stroke coverage of each path at ``width`` points."""
        return self._taken("stroke", width)

    def plan(self, width: float, outline_width: float) -> Plan:
        """The plan of every path's face then border in path order, then the outline (plain maps; with n paths,
        colour n is the borders', n + 1 the outline's)."""
        key = (width, outline_width)
        if key not in self._plans:
            faces, strokes, n = self.faces(width), self.strokes(width), len(self.paths)
            steps = [s for i in range(n) for s in ((faces[i], i), (strokes[i], n))]
            self._plans[key] = Plan.of([*steps, (self.outline(outline_width), n + 1)], self.width * self.height)
        return self._plans[key]

    def _taken(self, kind: str, width: float) -> list[Cover]:
        if (kind, width) not in self._covers:
            self._covers[kind, width] = self._take(kind, width)
        return self._covers[kind, width]

    def _take(self, kind: str, width: float) -> list[Cover]:
        """Draw the paths in white (the face or the stroke, the other transparent) on a transparent page, a
        group of paths whose boxes are apart at a time, and read each path's coverage in its box."""
        white, clear = "#ffffff", (0, 0, 0, 0)
        face, edge = (white, clear) if kind == "face" else (clear, white)
        margin = int(np.ceil(4 * width * self.fig.dpi / 72.0)) + 3
        boxes = [self._box(p, margin) for p in self.paths]
        covers: list[Cover | None] = [None] * len(self.paths)
        renderer = self.fig.canvas.get_renderer()
        for group in _apart(boxes):
            renderer.clear()
            # two colours at least: matplotlib draws a one-colour, one-path collection as a single simplified
            # path, where the region collection draws every path unsimplified
            coll = PathCollection([self.paths[i] for i in group], facecolors=[face, face],
                                  edgecolors=[edge, edge], linewidths=width, zorder=1)
            self.ax.add_collection(coll, autolim=False)
            coll.draw(renderer)
            coll.remove()
            alpha = np.asarray(renderer.buffer_rgba())[:, :, 3]
            for i in group:
                x0, y0, x1, y1 = boxes[i]
                covers[i] = Cover.of(alpha[y0:y1, x0:x1], boxes[i], self.width)
            if np.count_nonzero(alpha) != sum(_size(covers[i]) for i in group):
                raise ValueError("a path drew outside its box")  # not reached: the margin holds any stroke
        return [c for c in covers if c is not None]

    def _box(self, path: Path, margin: int) -> tuple[int, int, int, int]:
        xy = np.asarray(path.vertices, dtype=float)
        x0, y0 = np.floor(xy.min(axis=0)).astype(int) - margin
        x1, y1 = np.ceil(xy.max(axis=0)).astype(int) + margin
        return max(x0, 0), max(y0, 0), min(x1, self.width), min(y1, self.height)

    def tile(self, pattern: str, color: str, width: float) -> np.ndarray:
        """The page's pixels of ``pattern`` in ``color`` (uint32 words), as Agg repeats its hatch tile."""
        key = (pattern, color, width)
        if key not in self._tiles:
            w, h = self.width, self.height
            page = Path([(-50, -50), (w + 50, -50), (w + 50, h + 50), (-50, h + 50), (-50, -50)], closed=True)
            renderer = self.fig.canvas.get_renderer()
            renderer.clear()
            coll = PathCollection([page], facecolors=[(0, 0, 0, 0)], edgecolors=[color], linewidths=width,
                                  hatch=pattern, zorder=1)
            self.ax.add_collection(coll, autolim=False)
            coll.draw(renderer)
            coll.remove()
            self._tiles[key] = np.asarray(renderer.buffer_rgba()).reshape(-1, 4).copy().view(np.uint32).ravel()
        return self._tiles[key]


def _size(cover: Cover | None) -> int:
    return 0 if cover is None else len(cover.full) + len(cover.part)


def _apart(boxes: list[tuple[int, int, int, int]]) -> list[list[int]]:
    """Greedy groups of box indices whose boxes do not overlap (each group is drawn at once)."""
    groups: list[list[int]] = []
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        for group in groups:
            if all(x1 <= b[0] or boxes[j][2] <= x0 or y1 <= b[1] or boxes[j][3] <= y0
                   for j in group for b in [boxes[j]]):
                group.append(i)
                break
        else:
            groups.append([i])
    return groups


@dataclass(frozen=True)
class Layer:
    """One region as drawn: the cover of its face and of its border, its face colour and its hatch pattern
    step (or None)."""

    face_cover: Cover
    stroke_cover: Cover
    face: np.ndarray
    pattern: PatternStep | None = None


def composite(pixels: np.ndarray, layers: list[Layer], edge: np.ndarray, outline: tuple[Cover, np.ndarray]) -> None:
    """Draw ``layers`` in order over the opaque ``pixels`` (the page as uint32 words) — face, hatch, border —
    then the ``outline`` (its cover and colour)."""
    for layer in layers:
        if layer.pattern is not None:
            layer.pattern.draw(pixels, layer.face_cover, layer.face)
        else:
            paint(pixels, layer.face_cover, layer.face)
        paint(pixels, layer.stroke_cover, edge)
    paint(pixels, *outline)


def draw_with_regions(agg: Any, ax: Any, replaced: list[Any], draw_regions: Any,
                      plain_pages: dict[int, bool] | None = None) -> bool:
    """Draw the figure of ``agg`` with ``draw_regions(pixels)`` in place of the ``replaced`` artists (the
    regions and the outline): Agg draws what lies beneath them, ``draw_regions`` composites into the buffer,
    then Agg draws what lies above. False (nothing drawn) when another artist lies between or level with them,
    or the page beneath is not opaque (or the axes are on: a map's are off, so Agg never draws their patch,
    spines and axis artists)."""
    if ax.axison:
        return False
    low, high = min(a.get_zorder() for a in replaced), max(a.get_zorder() for a in replaced)
    skipped = [*replaced, ax.patch, ax.xaxis, ax.yaxis, *ax.spines.values()]  # not drawn with the axes off
    shown = [a for a in ax.get_children() if a.get_visible() and all(a is not s for s in skipped)]
    if any(low <= a.get_zorder() <= high for a in shown):
        return False
    below = [a for a in shown if a.get_zorder() < low]
    above = [a for a in shown if a.get_zorder() > high]
    _set_visible(replaced, False)
    try:
        _set_visible(above, False)
        pixels = _page(agg, bool(below), {} if plain_pages is None else plain_pages)
        if pixels is None:
            return False
        draw_regions(pixels)
        _set_visible(above, True)
        _set_visible([*below, agg.figure.patch], False)
        agg.figure.draw(agg.get_renderer())
    finally:
        _set_visible([*above, *below, *replaced, agg.figure.patch], True)
    return True


def _page(agg: Any, below: bool, plain_pages: dict[int, bool]) -> np.ndarray | None:
    """The page beneath the regions, drawn (the page's pixels as uint32 words); None when it is not opaque. A
    plain page (nothing beneath the regions) is filled with its colour once Agg has been seen to draw that
    colour so (``plain_pages``: colour word → whether it did)."""
    rgba = agg.figure.patch.get_facecolor()
    word = int(pack(np.asarray([int(round(v * 255)) for v in rgba[:3]]))) if rgba[3] == 1.0 else None
    pixels = np.asarray(agg.get_renderer().buffer_rgba()).reshape(-1, 4).view(np.uint32).ravel()
    if word is not None and not below and plain_pages.get(word):
        pixels[:] = word
        return pixels
    agg.draw()
    pixels = np.asarray(agg.get_renderer().buffer_rgba()).reshape(-1, 4).view(np.uint32).ravel()
    if word is not None and not below:
        plain_pages[word] = bool((pixels == word).all())
    return pixels if ((pixels >> 24) == 255).all() else None


def _set_visible(artists: list[Any], visible: bool) -> None:
    for artist in artists:
        artist.set_visible(visible)
