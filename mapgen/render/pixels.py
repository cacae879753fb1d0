"""Pixel truth: the region-id mask and per-region pixel facts for one atlas drawn in one layout.

Everything here depends only on the atlas geometry and the layout (not on values or colours), so it is computed
once per (atlas, layout) and reused for every map drawn that way — by any renderer.

Rules (documented, tested):
- The mask is the geometry rasterised without antialiasing; pixel value ``i + 1`` is region ``codes[i]``, 0 is
  background. bbox and area come from the mask.
- The oriented box is the minimum rotated rectangle of the region's pixel-space geometry.
- A region is *legible* when it covers at least :data:`MIN_AREA_PX` pixels and its largest part holds a circle of
  radius :data:`MIN_RADIUS_PX` (so its colour can be sampled away from edges).
- The sample point is the pole of inaccessibility of the largest part after removing every planned label box,
  leader line and end dot (plus a margin), so labels never cover the sampled pixels. It always lies on one of the
  region's own mask pixels (pixel ``(col, row)`` has its centre at ``(col + 0.5, row + 0.5)``): when the pole
  of a region a few pixels wide falls on a neighbour's pixel, the sample moves to the centre of the region's
  pixel deepest inside its mask.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import shapely
from PIL import Image, ImageDraw
from shapely.geometry import MultiPolygon, Polygon

from mapgen.geo.atlas import Atlas
from mapgen.render.layout import Layout

MIN_AREA_PX = 30
MIN_RADIUS_PX = 2.0
#: A hatch pattern repeats every few pixels: reading it needs a patch at least this wide (radius, px).
HATCH_MIN_RADIUS_PX = 6.0


@dataclass(frozen=True)
class RegionPixels:
    """Where one region landed in the image."""

    code: str
    bbox: tuple[int, int, int, int]  # x1, y1, x2, y2 (inclusive pixel indices)
    obb: tuple[tuple[float, float], ...]  # 4 corners of the minimum rotated rectangle
    area_px: int
    sample: tuple[float, float]  # safe interior point for reading the colour
    sample_radius: float  # distance from the sample point to the nearest edge (px)
    pole: tuple[float, float]  # pole of inaccessibility of the largest part
    pole_radius: float
    legible: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "bbox": list(self.bbox),
            "obb": [list(p) for p in self.obb],
            "area_px": self.area_px,
            "sample": [round(self.sample[0], 2), round(self.sample[1], 2)],
            "sample_radius": round(self.sample_radius, 2),
            "legible": self.legible,
        }


def pixel_geometry(atlas: Atlas, layout: Layout) -> dict[str, Polygon | MultiPolygon]:
    """Each region's geometry in pixel coordinates (origin top-left)."""
    out: dict[str, Polygon | MultiPolygon] = {}
    for code, geom in zip(atlas.codes, atlas.gdf.geometry):  # shapely.transform keeps the geometry type
        out[code] = cast("Polygon | MultiPolygon", shapely.transform(geom, layout.to_pixels))
    return out


def rasterize_mask(codes: tuple[str, ...], geoms: dict[str, Any], width: int, height: int) -> np.ndarray:
    """Region-id mask (uint16, 0 = background), no antialiasing; larger regions first so enclaves stay on top."""
    mask = np.zeros((height, width), dtype=np.uint16)
    order = sorted(range(len(codes)), key=lambda i: -geoms[codes[i]].area)
    for i in order:
        layer = Image.new("1", (width, height), 0)
        draw = ImageDraw.Draw(layer)
        for part in _parts(geoms[codes[i]]):
            draw.polygon(_pil_ring(part.exterior.coords), fill=1)
            for hole in part.interiors:
                draw.polygon(_pil_ring(hole.coords), fill=0)
        mask[np.asarray(layer, dtype=bool)] = i + 1
    return mask


def _pil_ring(coords) -> list[tuple[float, float]]:
    # PIL fills pixels whose centres (integer coordinates) fall inside; shift by half a pixel to match Agg.
    return [(x - 0.5, y - 0.5) for x, y in coords]


def _parts(geom) -> list[Polygon]:
    return list(geom.geoms) if isinstance(geom, MultiPolygon) else [geom]


def largest_part(geom) -> Polygon:
    return max(_parts(geom), key=lambda p: p.area)


def pole(polygon) -> tuple[tuple[float, float], float]:
    """Pole of inaccessibility and its radius (px)."""
    if polygon.is_empty:
        return (float("nan"), float("nan")), 0.0
    line = shapely.maximum_inscribed_circle(polygon, tolerance=0.5)
    (x, y), _ = line.coords[0], line.coords[-1]
    return (float(x), float(y)), float(line.length)


def region_pixels(
    codes: tuple[str, ...],
    geoms: dict[str, Any],
    mask: np.ndarray,
    poles: dict[str, tuple[tuple[float, float], float]],
    obstacles: Any,
) -> dict[str, RegionPixels]:
    """Pixel facts of every region; sample points keep clear of ``obstacles`` (label boxes, leader lines)."""
    from scipy import ndimage  # imported when a canvas is computed, not when a cached one is drawn

    areas = np.bincount(mask.ravel(), minlength=len(codes) + 1)
    slices = ndimage.find_objects(mask.astype(np.int32), max_label=len(codes))
    out = {}
    for i, code in enumerate(codes):
        geom = geoms[code]
        center, radius = poles[code]
        free = largest_part(geom).difference(obstacles)
        sample, sample_radius = pole(largest_part(free)) if not free.is_empty else (center, 0.0)
        sl = slices[i]
        if sl is not None and not _on_region(mask, sample, i + 1):
            sample = _deepest_pixel(mask, sl, i + 1)
            sample_radius = min(sample_radius, float(geom.boundary.distance(shapely.Point(sample))))
        bbox = (sl[1].start, sl[0].start, sl[1].stop - 1, sl[0].stop - 1) if sl else _geom_bbox(geom)
        rect = shapely.minimum_rotated_rectangle(geom)
        corners = tuple((round(x, 2), round(y, 2)) for x, y in list(rect.exterior.coords)[:4])
        area = int(areas[i + 1])
        out[code] = RegionPixels(
            code=code,
            bbox=(int(bbox[0]), int(bbox[1]), int(bbox[2]), int(bbox[3])),
            obb=corners,
            area_px=area,
            sample=sample,
            sample_radius=sample_radius,
            pole=center,
            pole_radius=radius,
            legible=area >= MIN_AREA_PX and sample_radius >= MIN_RADIUS_PX,
        )
    return out


def _on_region(mask: np.ndarray, xy: tuple[float, float], mask_id: int) -> bool:
    """Whether the pixel under ``xy`` (pixel ``(int(x), int(y))``) belongs to region ``mask_id``."""
    h, w = mask.shape
    row, col = int(xy[1]), int(xy[0])
    return 0 <= row < h and 0 <= col < w and mask[row, col] == mask_id


def _deepest_pixel(mask: np.ndarray, sl: tuple[slice, ...], mask_id: int) -> tuple[float, float]:
    """Centre of the region's mask pixel farthest from any other pixel (first in row order on ties)."""
    from scipy import ndimage

    window = np.pad(mask[sl] == mask_id, 1)
    depth = ndimage.distance_transform_edt(window)
    row, col = np.unravel_index(int(np.argmax(depth)), depth.shape)
    return (float(sl[1].start + col - 1 + 0.5), float(sl[0].start + row - 1 + 0.5))


def _geom_bbox(geom) -> tuple[int, int, int, int]:
    x1, y1, x2, y2 = geom.bounds
    return int(np.floor(x1)), int(np.floor(y1)), int(np.ceil(x2)), int(np.ceil(y2))


def mask_image(mask: np.ndarray) -> Image.Image:
    """Palette PNG of the mask: index = region number, a distinct colour per region for viewing. Atlases of more
    than 255 regions get a 16-bit greyscale PNG instead (value = region number; up to 65,535 regions)."""
    if mask.max() > 255:
        if mask.max() > 65535:
            raise ValueError("The mask PNG holds at most 65,535 regions; this atlas has more.")
        return Image.fromarray(mask.astype(np.uint16))
    img = Image.fromarray(mask.astype(np.uint8), mode="P")
    rng = np.random.default_rng(0)
    palette = rng.integers(40, 256, size=(256, 3), dtype=np.uint8)
    palette[0] = (255, 255, 255)
    img.putpalette(palette.ravel().tolist())
    return img
