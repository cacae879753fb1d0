"""Rendering a spec to files: the canvas of its page (cached), its registered renderer (:mod:`mapgen.renderers`),
and writing a render's files atomically."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mapgen.caches import ObjectCache, ValueCache
from mapgen.files import write_files_atomic
from mapgen.geo.atlas import Atlas
from mapgen.render.canvas import AtlasCanvas, build_canvas
from mapgen.render.canvas_cache import load_canvas, save_canvas
from mapgen.render.pixels import HATCH_MIN_RADIUS_PX, mask_image
from mapgen.render.style import DEFAULT_STYLE, RENDERER_LOOKS, style_of
from mapgen.render.text import text_box, title_items
from mapgen.renderers import OUTPUT_SUFFIXES, SUFFIX_FORMATS, get_renderer, output_problem
from mapgen.scene import Scene, build_scene
from mapgen.spec import MapSpec, Style

if TYPE_CHECKING:
    import numpy as np


@dataclass
class RenderResult:
    """Files and facts of one rendered map, and what was written to them (to read a fresh map from memory)."""

    image: Path
    mask: Path
    json: Path
    scene: Scene
    legend_items: list[dict[str, Any]]
    labels: dict[str, dict[str, Any]]
    png: bytes = field(default=b"", repr=False)  # the PNG written to ``image``
    mask_ids: np.ndarray | None = field(default=None, repr=False)  # the region-id mask written to ``mask``
    record: dict[str, Any] = field(default_factory=dict, repr=False)  # the render record written to ``json``


_CANVASES: ValueCache[tuple, AtlasCanvas] = ValueCache("render.canvases", maxsize=64)


def layout_key(atlas: Atlas, style: Style) -> tuple:
    """Everything the page geometry depends on (and the language of a page drawing native names, whose label
    boxes hold that language's short labels)."""
    key: tuple[Any, ...] = (atlas.name, atlas.codes, style.width, style.height, style.dpi, style.show_title, style.legend_position)
    if style.look != DEFAULT_STYLE or style.look_digest:
        key = (*key, style.look, style.look_digest)
    elif style.renderer in RENDERER_LOOKS:  # the renderer's own look lays the page out its way
        key = (*key, style.renderer)
    return key if style.label_mode == "codes" or style.language == "en" else (*key, style.language)


def get_canvas(atlas: Atlas, style: Style) -> AtlasCanvas:
    """The cached canvas (paths, mask, pixel facts) for this atlas and page layout: held per process, and for
    built-in atlases kept on disk between processes (:mod:`mapgen.render.canvas_cache`)."""
    key = layout_key(atlas, style)
    return _CANVASES.get_or_make(key, lambda: _load_or_build(atlas, style, key))


def _load_or_build(atlas: Atlas, style: Style, key: tuple) -> AtlasCanvas:
    """The canvas from the disk cache, or built (and kept there)."""
    canvas = load_canvas(atlas, key)
    if canvas is None:
        canvas = build_canvas(atlas, style)
        save_canvas(canvas, key)
    return canvas


#: A check of a render record: the regions it fails, each with the names of the failed checks.
Vet = Callable[[dict[str, Any]], dict[str, list[str]]]


def render(spec: MapSpec, path: str | Path, atlas: Atlas | None = None, vet: Vet | None = None) -> RenderResult:
    """Render ``spec`` to ``path`` (PNG, or SVG/PDF/HTML with the PNG's layout) plus ``.mask.png`` and ``.json`` beside it. ``vet`` (the build passes
    the legibility audit, :func:`mapgen.audit.legibility.vet`) reads the render record before it is written;
    the regions it fails become illegible (``legible: false`` with their ``audit_flags``), so no question
    hinges on them."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in OUTPUT_SUFFIXES:
        raise ValueError(f"Output {str(path)!r} must end in one of {', '.join(OUTPUT_SUFFIXES)}.")
    problem = output_problem(suffix, spec.style.renderer)
    if problem is not None:
        raise ValueError(f"{problem}.")
    atlas = atlas or spec.get_atlas()
    canvas = get_canvas(atlas, spec.style)
    png, legend_items, labels = _draw(spec, canvas, suffix)
    scene = scene_with_pixels(build_scene(spec, atlas), canvas)
    mask_path = path.with_suffix(".mask.png")
    json_path = path.with_suffix(".json")
    record = render_record(spec, canvas, scene, legend_items, labels, folder=json_path.parent)
    if vet is not None:
        scene = apply_vet(scene, record, vet(record))
    write_files_atomic(
        {path: png, mask_path: _mask_png(canvas), json_path: json.dumps(record, separators=(",", ":"), allow_nan=False).encode()}
    )
    return RenderResult(path, mask_path, json_path, scene, legend_items, labels, png, canvas.mask, record)


def _draw(spec: MapSpec, canvas: AtlasCanvas, suffix: str) -> tuple[bytes, list[dict[str, Any]], dict[str, Any]]:
    """The image bytes of a render in the format of its file suffix (:data:`~mapgen.renderers.SUFFIX_FORMATS`)."""
    return get_renderer(spec.style.renderer).draw(spec, canvas, SUFFIX_FORMATS[suffix])


def hatched_variant(spec: MapSpec) -> MapSpec:
    """The hatched variant of a discrete map (:func:`mapgen.spec.make_hatched`) as its style prints hatched maps
    (:func:`hatched_in_style`)."""
    from mapgen.spec import make_hatched

    return hatched_in_style(make_hatched(spec))


def hatched_in_style(spec: MapSpec, labels: bool = False) -> MapSpec:
    """A hatched ``spec`` as its style prints hatched maps: every class face in the style's ``hatch_fill`` when
    it sets one, and without region labels when its hatched maps carry none (``labels.on_hatched: false``) unless
    ``labels`` (a user's explicit ``--annotated``). Other specs are returned unchanged."""
    from mapgen.spec import with_hatch_fill

    if not spec.hatched:
        return spec
    look = style_of(spec.style, spec.atlas, hatched=True)
    if look.hatch_fill and any(c.color != look.hatch_fill for c in spec.legend.classes):
        spec = with_hatch_fill(spec, look.hatch_fill)
    if spec.style.annotated and not look.labels.on_hatched and not labels:
        spec = spec.with_style(annotated=False)
    return spec


def render_variants(spec: MapSpec, out_dir: str | Path, stem: str | None = None) -> list[RenderResult]:
    """Annotated, unannotated and (discrete maps) hatched renders of one spec into ``out_dir``."""
    out_dir = Path(out_dir)
    stem = stem or spec.map_id
    variants = [("annotated", spec.with_style(annotated=True)), ("unannotated", spec.with_style(annotated=False))]
    if spec.legend.kind == "discrete":
        variants.append(("hatched", hatched_variant(spec)))
    return [render(replace(v, map_id=f"{spec.map_id}-{name}"), out_dir / f"{stem}-{name}.png") for name, v in variants]


def scene_with_pixels(scene: Scene, canvas: AtlasCanvas) -> Scene:
    """The scene with each region's pixel facts and legibility from the canvas. On hatched maps a region must
    also hold a whole hatch period around its sample point (:data:`HATCH_MIN_RADIUS_PX`) to count as legible; on
    annotated maps a region whose label found no clean spot (``canvas.unplaced``) is illegible too. A hatched
    map without labels samples its regions clear of the outline only (:meth:`AtlasCanvas.bare_pixels`): the
    labels its layout plans for colour maps are not drawn on it."""
    min_radius = HATCH_MIN_RADIUS_PX if scene.hatched else 0.0
    unlabelled = set(canvas.unplaced) if scene.annotated else set()
    facts = canvas.bare_pixels() if scene.hatched and not scene.annotated else canvas.pixels
    legible = {c: p.legible and p.sample_radius >= min_radius and c not in unlabelled for c, p in facts.items()}
    pixels = {c: p.to_dict() | {"legible": legible[c]} for c, p in facts.items()}
    return scene.with_pixels(pixels, legible)


def apply_vet(scene: Scene, record: dict[str, Any], failed: dict[str, list[str]]) -> Scene:
    """Mark the regions ``failed`` illegible in ``scene`` and in ``record["regions"]`` (with their flags)."""
    if not failed:
        return scene
    for code, flags in failed.items():
        record["regions"][code] = record["regions"][code] | {"legible": False, "audit_flags": list(flags)}
    regions = record["regions"]
    return scene.with_pixels(regions, {c: bool(r.get("legible", True)) for c, r in regions.items()})


def drawn_title(spec: MapSpec, canvas: AtlasCanvas) -> list[dict[str, Any]]:
    """The title lines as drawn (text and pixel box); empty when the map has no title."""
    box = canvas.layout.title_box
    if not (spec.style.show_title and box is not None and spec.title):
        return []
    return [{"text": t.text, "box": list(text_box(t))} for t in title_items(spec.title, box, style_of(spec.style, spec.atlas, spec.hatched))]


def render_record(spec, canvas, scene, legend_items, labels, folder: Path | None = None) -> dict[str, Any]:
    """The render JSON; a user atlas file's path in it is relative to ``folder`` (where the JSON is written)."""
    lay = canvas.layout
    return {
        "spec": spec.to_dict(relative_to=folder),
        "render": {
            "renderer": spec.style.renderer,
            "width": lay.width,
            "height": lay.height,
            "png_compress_level": spec.style.png_compress_level,
            "map_box": [lay.map_box.left, lay.map_box.top, lay.map_box.right, lay.map_box.bottom],
            "mask_ids": {code: i + 1 for i, code in enumerate(canvas.codes)},
        },
        "legend_items": legend_items,
        "title": drawn_title(spec, canvas),
        "labels": labels,
        "regions": {c: r.pixels | {"legible": r.legible} for c, r in scene.regions.items()},
    }


_MASK_PNG: ObjectCache[bytes] = ObjectCache("render.mask_png", maxsize=64)


def _mask_png(canvas: AtlasCanvas) -> bytes:
    """The PNG of a canvas's region-id mask (made once per canvas)."""
    return _MASK_PNG.get_or_make(canvas, lambda: _encode_mask(canvas))


def _encode_mask(canvas: AtlasCanvas) -> bytes:
    import io

    buf = io.BytesIO()
    mask_image(canvas.mask).save(buf, format="PNG", optimize=False)
    return buf.getvalue()


