"""Region-label figures (issue 30 item 6): full-name labels, labels on small pages, the label plan's cost.

    python benchmarks/label_figures.py [--countries usa india china] [--small 400x300]

Per country it prints

- the share of regions that ``--names`` labels with their full name, at 800×600 and at the country's default
  page size (:func:`mapgen.render.layout.default_page_size` where it exists), and how those names are set (one
  line at the code's size, smaller type, two lines);
- on the small page (400×300): the regions legible by their pixels that get no label (an annotated map makes
  them illegible), the label size in px, the number of callouts;
- the CPU seconds of the label plan (:func:`mapgen.render.placement.plan`) and of the whole canvas at 800×600.
"""

from __future__ import annotations

import argparse
import time

import matplotlib

matplotlib.use("Agg")

from mapgen.data.curated import list_stats  # noqa: E402
from mapgen.geo.atlas import load_atlas  # noqa: E402
from mapgen.render import canvas as canvas_module  # noqa: E402
from mapgen.render.canvas import build_canvas  # noqa: E402
from mapgen.render.mpl_renderer import label_texts  # noqa: E402
from mapgen.spec import Style, make_spec  # noqa: E402


def default_size(atlas) -> tuple[int, int]:
    """The country's default page size (800×600 where this checkout has no per-country default)."""
    try:
        from mapgen.render.layout import default_page_size
    except ImportError:
        return 800, 600
    return default_page_size(atlas)


def name_share(country: str, size: tuple[int, int]) -> tuple[int, int, dict[str, int]]:
    """(regions labelled with their full name, regions, how the names are set) on a ``--names`` map."""
    atlas = load_atlas(country)
    stat = list_stats(country)[0].id
    spec = make_spec(atlas, stat, label_mode="names", width=size[0], height=size[1])
    canvas = build_canvas(atlas, spec.style)
    texts = label_texts(spec, canvas)
    named = [c for c in canvas.codes if texts[c] == atlas.names[c]]
    kinds: dict[str, int] = {}
    fit = getattr(canvas, "name_fit", None)
    for code in named:
        found = fit(code, texts[code]) if fit else None
        kind = "one line" if found is None else found.layout.kind
        kinds[kind] = kinds.get(kind, 0) + 1
    return len(named), len(canvas.codes), kinds


def small_page(country: str, size: tuple[int, int]) -> tuple[list[str], float, int]:
    """Regions legible by their pixels left without a label on an annotated page, label size, callouts."""
    canvas = build_canvas(load_atlas(country), Style(width=size[0], height=size[1]))
    lost = [c for c in canvas.unplaced if canvas.pixels[c].legible]
    callouts = sum(p.kind == "callout" for p in canvas.places.values())
    return lost, canvas.label_px, callouts


def plan_seconds(country: str) -> tuple[float, float]:
    """CPU seconds of the label plan and of the whole canvas of an 800×600 page."""
    atlas = load_atlas(country)
    atlas.gdf  # noqa: B018 (load the geometry before timing)
    spent = [0.0]
    real_plan = canvas_module.plan

    def timed(problem):
        start = time.process_time()
        try:
            return real_plan(problem)
        finally:
            spent[0] += time.process_time() - start

    canvas_module.plan = timed
    try:
        start = time.process_time()
        build_canvas(atlas, Style())
        total = time.process_time() - start
    finally:
        canvas_module.plan = real_plan
    return spent[0], total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--countries", nargs="+", default=["usa", "india", "china"])
    parser.add_argument("--small", default="400x300")
    args = parser.parse_args()
    small = tuple(int(v) for v in args.small.split("x"))
    print("country  full names 800x600        full names at default size          "
          f"{args.small}: legible, unlabelled   label px  callouts   plan / canvas CPU s")
    for country in args.countries:
        named, total, kinds = name_share(country, (800, 600))
        size = default_size(load_atlas(country))
        dnamed, dtotal, dkinds = name_share(country, size)
        lost, label_px, callouts = small_page(country, small)  # type: ignore[arg-type]
        plan_s, canvas_s = plan_seconds(country)
        how = ", ".join(f"{k} {v}" for k, v in sorted(dkinds.items()))
        print(f"{country:<8} {named:>2}/{total} ({named / total:5.1%})   "
              f"{dnamed:>2}/{dtotal} ({dnamed / dtotal:5.1%}) at {size[0]}x{size[1]} [{how}]   "
              f"{len(lost):>2} {' '.join(lost) or '-':<24} {label_px:5.1f} {callouts:>4}   "
              f"{plan_s:5.2f} / {canvas_s:5.2f}")


if __name__ == "__main__":
    main()
