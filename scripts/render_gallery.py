"""Render one map per variant per country, plus a contact sheet, so a person can look at them.

    python scripts/render_gallery.py -o gallery/          # gallery/<country>-<variant>.png + gallery/contact.png
"""

from __future__ import annotations

import argparse
from pathlib import Path

from PIL import Image, ImageDraw

from mapgen.render import render
from mapgen.spec import make_hatched, make_spec

MAPS = {"usa": "population_2020", "india": "literacy_2011", "china": "gdp_per_capita_2022"}


def variants(country: str, stat: str) -> dict[str, object]:
    """Every variant of one map: legend types, annotation, hatching, colour scales, backgrounds, legend layout."""
    base = make_spec(country, stat, classes=5, colormap="Blues")
    return {
        "discrete-annotated": base,
        "discrete-unannotated": base.with_style(annotated=False),
        "discrete-names": base.with_style(label_mode="names"),
        "hatched": make_hatched(base),
        "continuous": make_spec(country, stat, legend="continuous", colormap="YlOrRd"),
        "continuous-horizontal": make_spec(country, stat, legend="continuous", colormap="viridis",
                                           legend_orientation="horizontal", legend_position="bottom"),
        "dark-reversed-grey-bg": make_spec(country, stat, classes=4, colormap="Purples", reverse=True,
                                           background="lightgray", order="large_to_small"),
        "lightsteelblue-no-title": make_spec(country, stat, classes=6, colormap="Greens",
                                             background="lightsteelblue", show_title=False,
                                             legend_position="bottom-right"),
    }


def contact_sheet(paths: list[Path], out: Path, columns: int = 4, thumb: tuple[int, int] = (400, 300)) -> None:
    rows = (len(paths) + columns - 1) // columns
    sheet = Image.new("RGB", (columns * thumb[0], rows * (thumb[1] + 16)), "white")
    draw = ImageDraw.Draw(sheet)
    for i, path in enumerate(paths):
        with Image.open(path) as img:
            img = img.convert("RGB").resize(thumb)
        x, y = (i % columns) * thumb[0], (i // columns) * (thumb[1] + 16)
        sheet.paste(img, (x, y + 16))
        draw.text((x + 4, y + 2), path.stem, fill="black")
    sheet.save(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", type=Path, default=Path("gallery"))
    args = parser.parse_args()
    paths = []
    for country, stat in MAPS.items():
        for name, spec in variants(country, stat).items():
            paths.append(render(spec, args.output / f"{country}-{name}.png").image)
    contact_sheet(paths, args.output / "contact.png")
    print(f"{len(paths)} maps and a contact sheet in {args.output}")


if __name__ == "__main__":
    main()
