"""Draw the documentation's pictures with mapgen itself, and tell when one is stale.

    python scripts/gallery.py              # draw every picture into docs/gallery/ and write its manifest
    python scripts/gallery.py --check      # name the stale pictures and what changed; exit 1 if any

A picture is a recipe: the files and ``mapgen`` commands a page shows next to it (run as written, in this
process, in a scratch folder holding a link to the checkout's ``data/``), and a composer that turns their
outputs into one web-size PNG (one map, maps side by side, a question with its answer drawn, grounding boxes).

``docs/gallery/manifest.json`` records what each picture was drawn from, not its pixels: a digest of its
recipe, the map id and spec digest of each map in it, and the digest of every source file read while the
gallery was drawn — each ``mapgen`` module loaded, each file under ``data/`` and ``templates/`` opened (seen by
an audit hook, with the canvas disk cache off so the atlas files are read) and this script. The recipe and the
sources determine the specs; a picture is stale when its recipe or any of those files changed
(``tests/test_gallery.py``). Library versions are recorded but not digested: a fresh install may bring a newer
patch release, and the pictures are illustrations, not test fixtures.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # draw with this checkout's mapgen, whatever is installed
    sys.path.insert(0, str(ROOT))

GALLERY = ROOT / "docs" / "gallery"
MANIFEST = GALLERY / "manifest.json"
WATCHED = ("data", "templates")
LIBRARIES = ("matplotlib", "pillow", "numpy", "shapely", "click")
PANEL_WIDTH = 420
COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e")


@dataclass(frozen=True)
class Picture:
    """One picture: what a page shows (files, commands) and how their outputs become the PNG."""

    name: str
    page: str
    alt: str
    commands: tuple[str, ...]
    compose: str
    args: tuple[Any, ...] = ()
    files: tuple[tuple[str, str], ...] = field(default=())

    def recipe_digest(self) -> str:
        """Digest of everything the recipe states (page, files, commands, composer and its arguments)."""
        text = json.dumps([self.page, self.files, self.commands, self.compose, self.args], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:20]


# --------------------------------------------------------------------------------------------------- recipes

STYLES = ("default", "mapwise", "newsroom", "minimal", "statistics", "dashboard")
COUNTRY_STATS = (("usa", "population_2020"), ("india", "literacy_2011"), ("china", "gdp_per_capita_2022"))
STYLES_CSV = "source,stat,style,output\n" + "".join(
    f"{country},{stat},{style},{style}-{country}.png\n" for style in STYLES for country, stat in COUNTRY_STATS
)
SPEC = "mapgen spec usa --stat population_2020 --legend discrete --classes 5 -o map.json"
RENDER = "mapgen render map.json -o out/map.png"
QUESTIONS = "mapgen questions out/map.json -o out/questions.jsonl --per-template 2 --seed 1"
VARIANTS = (
    "mapgen render usa --stat population_2020 -o variants/discrete.png",
    "mapgen render usa --stat population_2020 --legend continuous --colormap YlOrRd -o variants/continuous.png",
    "mapgen render usa --stat population_2020 --no-annotated -o variants/unannotated.png",
    "mapgen render usa --stat population_2020 --names -o variants/names.png",
    "mapgen render usa --stat population_2020 --hatched -o variants/hatched.png",
    "mapgen render india --stat literacy_2011 --hatched --horizontal-legend --legend-position bottom"
    " -o variants/india-hatched.png",
)
SCALES = (
    "mapgen render usa --stat population_density_2020 --legend continuous -o scales/linear.png",
    "mapgen render usa --stat population_density_2020 --legend continuous --scale log -o scales/log.png",
    "mapgen render usa --stat population_density_2020 --legend continuous --scale clip -o scales/clip.png",
    "mapgen render usa --stat population_change_2010_2020 --legend continuous --colormap RdBu --midpoint 0"
    " -o scales/change.png",
)
COUNTERFACTUAL = "mapgen counterfactual map.json --kind imaginary,shuffled,jumbled --seed 3 -o cf/"
GERMANY = (
    "mapgen atlas neighbors data/examples/germany/germany.geojson \"Lower Saxony\"",
    "mapgen render data/examples/germany/germany.geojson --data data/examples/germany/germany.csv"
    " --classes 4 --colormap Greens -o germany.png",
)


def pictures() -> list[Picture]:
    """Every picture of the documentation, in drawing order."""
    found = [
        Picture("first-map", "getting-started.md", "A five-class map of the USA's 2020 population",
                (SPEC, RENDER), "single", ("out/map.png",)),
        Picture("all-variants", "getting-started.md", "The annotated, unannotated and hatched variants of one map",
                ("mapgen render usa --stat population_2020 --all-variants -o out/",), "grid",
                ((("out/*-annotated.png", "annotated"), ("out/*-unannotated.png", "unannotated"),
                  ("out/*-hatched.png", "hatched")),)),
        Picture("germany", "getting-started.md", "The 16 German states from the shipped example atlas and table",
                GERMANY, "single", ("germany.png",)),
        *[Picture(f"style-{style}", "rendering.md", f"The {style} style on the USA, India and China",
                  ("mapgen render styles.csv -o styles/",), "grid",
                  (tuple((f"styles/{style}-{country}.png", country) for country, _ in COUNTRY_STATS),),
                  (("styles.csv", STYLES_CSV),)) for style in STYLES],
        Picture("variants", "rendering.md", "Discrete, continuous, unannotated, full names and hatched maps",
                VARIANTS, "grid",
                ((("variants/discrete.png", "discrete"), ("variants/continuous.png", "--legend continuous"),
                  ("variants/unannotated.png", "--no-annotated"), ("variants/names.png", "--names"),
                  ("variants/hatched.png", "--hatched"), ("variants/india-hatched.png", "india, hatched")), 3)),
        Picture("scales", "rendering.md", "Linear, log, clipped and diverging colour bars",
                SCALES, "grid",
                ((("scales/linear.png", "linear"), ("scales/log.png", "--scale log"),
                  ("scales/clip.png", "--scale clip"), ("scales/change.png", "RdBu --midpoint 0")), 2)),
        Picture("counterfactual-kinds", "counterfactuals.md",
                "One map as the original control and its imaginary, shuffled and jumbled counterfactuals, with "
                "one question re-asked on each",
                (SPEC, COUNTERFACTUAL), "counterfactuals", ("cf", "group_regions_in_range")),
        Picture("question-answer", "tasks-and-evaluation.md",
                "A question's region (blue) and its computed answer (red) drawn on the map",
                (SPEC, RENDER, QUESTIONS), "answer", ("out/map.json", "out/questions.jsonl",
                                                      "group_regions_in_range")),
        Picture("grounding", "tasks-and-evaluation.md", "Referring expressions and their boxes",
                (SPEC, RENDER, "mapgen describe out/map.json -o out/annotations.json"), "grounding",
                ("out/map.png", "out/annotations.json", 4)),
        Picture("scene-facts", "scene.md",
                "Pixel facts of four regions: box, oriented box, sample circle and label box",
                (SPEC, RENDER), "facts", ("out/map.json", ("CO", "TX", "MI", "RI"))),
    ]
    return found


# ------------------------------------------------------------------------------------------------- composers

def _font(size: int) -> ImageFont.FreeTypeFont:
    import matplotlib

    return ImageFont.truetype(str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"), size)


#: map id → digest of its spec, for every map a composer opened while drawing the current picture
DRAWN_SPECS: dict[str, str] = {}


def _open(folder: Path, pattern: str) -> Image.Image:
    """The one image matching the pattern; its map's spec (from the render JSON beside it) is noted."""
    matches = sorted(folder.glob(pattern))
    if len(matches) != 1:
        raise SystemExit(f"gallery: {pattern!r} matched {len(matches)} files in the scratch folder, not one")
    facts = matches[0].with_suffix(".json")
    if facts.is_file():
        spec = json.loads(facts.read_text(encoding="utf-8"))["spec"]
        DRAWN_SPECS[spec["map_id"]] = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:20]
    with Image.open(matches[0]) as img:
        return img.convert("RGB")


def _panel(img: Image.Image, width: int) -> Image.Image:
    return img.resize((width, round(img.height * width / img.width)), Image.Resampling.LANCZOS)


def _caption(img: Image.Image, lines: list[str], size: int = 15, width: int = 100) -> Image.Image:
    """The image with a white band of text under it."""
    wrapped = [part for line in lines for part in textwrap.wrap(line, width)]
    font, step = _font(size), round(size * 1.35)
    out = Image.new("RGB", (img.width, img.height + step * len(wrapped) + 12), "white")
    out.paste(img, (0, 0))
    draw = ImageDraw.Draw(out)
    for i, line in enumerate(wrapped):
        draw.text((10, img.height + 6 + i * step), line, fill="black", font=font)
    return out


def _sheet(panels: list[tuple[Image.Image, str]], columns: int) -> Image.Image:
    """Panels of equal width in rows, each titled above; rows as tall as their tallest panel."""
    font, band = _font(15), 24
    rows = [panels[i:i + columns] for i in range(0, len(panels), columns)]
    heights = [max(p.height for p, _ in row) + band for row in rows]
    width = columns * PANEL_WIDTH + (columns - 1) * 8
    sheet = Image.new("RGB", (width, sum(heights) + 8 * (len(rows) - 1)), "white")
    draw = ImageDraw.Draw(sheet)
    y = 0
    for row, height in zip(rows, heights):
        for i, (panel, title) in enumerate(row):
            x = i * (PANEL_WIDTH + 8)
            draw.text((x + 4, y + 3), title, fill="#333333", font=font)
            sheet.paste(panel, (x, y + band))
        y += height + 8
    return sheet


def single(folder: Path, pattern: str) -> Image.Image:
    """One map as drawn."""
    return _open(folder, pattern)


def grid(folder: Path, items: tuple[tuple[str, str], ...], columns: int = 3) -> Image.Image:
    """Maps side by side, each titled."""
    return _sheet([(_panel(_open(folder, pattern), PANEL_WIDTH), title) for pattern, title in items], columns)


def _codes(render_json: dict[str, Any], country: str) -> Callable[[str], str]:
    """Name on the map → region code (counterfactual names through the map's own names)."""
    from mapgen import load_atlas

    shown = (render_json["spec"].get("counterfactual") or {}).get("names") or {}
    by_name = {name: code for code, name in shown.items()}
    atlas = load_atlas(country)
    return lambda name: by_name.get(name) or atlas.resolve(name)


def _answer_names(question: dict[str, Any]) -> list[str]:
    answer = question["answer"]
    return [str(a) for a in answer] if isinstance(answer, list) else [str(answer)]


def _mark(img: Image.Image, render_json: dict[str, Any], codes: list[str], colour: str, width: int = 3) -> None:
    draw = ImageDraw.Draw(img)
    for code in codes:
        x0, y0, x1, y1 = render_json["regions"][code]["bbox"]
        draw.rectangle((x0 - 2, y0 - 2, x1 + 2, y1 + 2), outline=colour, width=width)


def _asked_region(question: dict[str, Any]) -> str | None:
    """The region the question names in its group parameter ("bordering Montana" → "Montana")."""
    group = str(question["params"].get("R", ""))
    return group.removeprefix("bordering ") if group.startswith("bordering ") else None


def _draw_question(folder: Path, map_json: Path, question: dict[str, Any]) -> Image.Image:
    data = json.loads(map_json.read_text(encoding="utf-8"))
    img = _open(folder, str(map_json.relative_to(folder).with_suffix(".png")))
    code_of = _codes(data, question["country"])
    asked = _asked_region(question)
    if asked:
        _mark(img, data, [code_of(asked)], COLOURS[1])
    _mark(img, data, [code_of(name) for name in _answer_names(question)], COLOURS[0])
    return img


def answer(folder: Path, map_json: str, questions: str, template: str) -> Image.Image:
    """A question's named region (blue) and its computed answer (red) boxed on the map, the text under it."""
    records = [json.loads(line) for line in (folder / questions).read_text(encoding="utf-8").splitlines()]
    question = next(q for q in records if q["template_id"] == template)
    img = _draw_question(folder, folder / map_json, question)
    return _caption(img, [f"Q: {question['question']}", f"A: {', '.join(_answer_names(question))}"])


def counterfactuals(folder: Path, cf: str, template: str) -> Image.Image:
    """The original and its counterfactuals, each with one question re-asked on it and its answer boxed."""
    records = [json.loads(line) for line in (folder / cf / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    panels = []
    for kind in ("original", "imaginary", "shuffled", "jumbled"):
        question = next(q for q in records if q["template_id"] == template and q["counterfactual_set"] == kind)
        img = _draw_question(folder, (folder / cf / question["image"]).with_suffix(".json"), question)
        captioned = _caption(img, [question["question"], "→ " + ", ".join(_answer_names(question))], 22, 64)
        panels.append((_panel(captioned, PANEL_WIDTH), kind))
    return _sheet(panels, 2)


def grounding(folder: Path, png: str, annotations: str, count: int) -> Image.Image:
    """The first referring expressions of the map, each with its box in its colour."""
    img = _open(folder, png)
    draw = ImageDraw.Draw(img)
    lines = []
    referring = json.loads((folder / annotations).read_text(encoding="utf-8"))["referring"][:count]
    for i, ref in enumerate(referring):
        colour = COLOURS[i % len(COLOURS)]
        x0, y0, x1, y1 = ref["box"]
        draw.rectangle((x0, y0, x1, y1), outline=colour, width=3)
        draw.text((x0 + 3, y0 + 1), str(i + 1), fill=colour, font=_font(14))
        lines.append(f"{i + 1}. {ref['expression']}  →  box {ref['box']}")
    return _caption(img, lines)


def facts(folder: Path, map_json: str, codes: tuple[str, ...]) -> Image.Image:
    """Pixel facts of a few regions: bbox (red), oriented box (blue), sample circle (green), label box (purple)."""
    data = json.loads((folder / map_json).read_text(encoding="utf-8"))
    img = _open(folder, str(Path(map_json).with_suffix(".png")))
    draw = ImageDraw.Draw(img)
    for code in codes:
        region = data["regions"][code]
        draw.rectangle(region["bbox"], outline=COLOURS[0], width=2)
        draw.polygon([tuple(p) for p in region["obb"]], outline=COLOURS[1], width=2)
        (sx, sy), r = region["sample"], region["sample_radius"]
        draw.ellipse((sx - r, sy - r, sx + r, sy + r), outline=COLOURS[2], width=2)
        label = data["labels"].get(code)
        if label:
            draw.rectangle(label["box"], outline=COLOURS[3], width=2)
    return _caption(img, [f"{', '.join(codes)}: bbox (red), oriented box (blue), sample circle (green), "
                          "label box (purple)"])


COMPOSERS: dict[str, Callable[..., Image.Image]] = {
    f.__name__: f for f in (single, grid, answer, counterfactuals, grounding, facts)
}


# ---------------------------------------------------------------------------------------------------- drawing

def save_web(img: Image.Image, path: Path) -> None:
    """A small, deterministic PNG: a 96-colour palette without dithering, no metadata."""
    path.parent.mkdir(parents=True, exist_ok=True)
    small = img.convert("RGB").quantize(96, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    small.save(path, "PNG", optimize=True)


@contextmanager
def _inside(folder: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def scratch(picture: Picture, root: Path) -> Path:
    """A folder with a link to the checkout's data/, the picture's files written, and its commands run in it."""
    from click.testing import CliRunner

    from mapgen.cli import main

    folder = root / hashlib.sha256(repr((picture.files, picture.commands)).encode()).hexdigest()[:12]
    if folder.exists():
        return folder
    folder.mkdir(parents=True)
    (folder / "data").symlink_to(ROOT / "data")
    for name, text in picture.files:
        (folder / name).write_text(text, encoding="utf-8")
    with _inside(folder):
        for command in picture.commands:
            argv = shlex.split(command)
            result = CliRunner().invoke(main, argv[1:], catch_exceptions=False)
            if result.exit_code != 0:
                raise SystemExit(f"gallery: `{command}` exited {result.exit_code}: {result.output.strip()}")
    return folder


class SourceWatch:
    """Every file under data/ or templates/ opened while drawing (through an audit hook)."""

    def __init__(self) -> None:
        self.opened: set[Path] = set()
        self.active = False
        sys.addaudithook(self._hook)

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        if self.active and event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            self.opened.add(Path(os.path.realpath(os.fsdecode(args[0]))))


def _relative(path: Path) -> str | None:
    path = path.resolve()
    if not path.is_relative_to(ROOT) or not path.is_file():
        return None
    return path.relative_to(ROOT).as_posix()


def loaded_sources(watch: SourceWatch) -> list[str]:
    """This script, every mapgen module loaded, and every watched data or template file opened."""
    found = {"scripts/gallery.py"}
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if (name == "mapgen" or name.startswith("mapgen.")) and file:
            rel = _relative(Path(file))
            if rel and rel.startswith("mapgen/"):
                found.add(rel)
    for path in watch.opened:
        rel = _relative(path)
        if rel and rel.split("/")[0] in WATCHED:
            found.add(rel)
    return sorted(found)


def file_digest(rel: str, root: Path = ROOT) -> str | None:
    """sha256 (20 hex) of a file of the checkout, None when it is gone."""
    path = root / rel
    return hashlib.sha256(path.read_bytes()).hexdigest()[:20] if path.is_file() else None


def png_digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:20] if path.is_file() else None


def draw(names: set[str] | None = None) -> dict[str, Any]:
    """Draw the pictures (all, or those named) and write the manifest."""
    os.environ["MAPGEN_CANVAS_CACHE"] = "off"
    watch = SourceWatch()
    old = json.loads(MANIFEST.read_text(encoding="utf-8")) if MANIFEST.is_file() else {"pictures": {}}
    entries: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="mapgen-gallery-") as tmp:
        watch.active = True
        for picture in pictures():
            if names is not None and picture.name not in names:
                if picture.name in old["pictures"]:
                    entries[picture.name] = old["pictures"][picture.name]
                continue
            folder = scratch(picture, Path(tmp))
            DRAWN_SPECS.clear()
            img = COMPOSERS[picture.compose](folder, *picture.args)
            out = GALLERY / f"{picture.name}.png"
            save_web(img, out)
            entries[picture.name] = {"page": picture.page, "recipe": picture.recipe_digest(),
                                     "specs": dict(sorted(DRAWN_SPECS.items())),
                                     "png": png_digest(out), "size": list(img.size), "bytes": out.stat().st_size}
            print(f"{out.relative_to(ROOT)}  {img.size[0]}×{img.size[1]}  {out.stat().st_size // 1024} KB")
        watch.active = False
    sources = loaded_sources(watch)
    if names is not None:  # a partial redraw keeps the sources the full one found
        sources = sorted(set(sources) | set(old.get("sources", {})))
    manifest = {
        "about": "What each picture was drawn from (scripts/gallery.py); tests/test_gallery.py fails when stale.",
        "libraries": {name: metadata.version(name) for name in LIBRARIES},
        "sources": {rel: file_digest(rel) for rel in sources},
        "pictures": entries,
    }
    MANIFEST.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for stray in sorted(set(GALLERY.glob("*.png")) - {GALLERY / f"{name}.png" for name in entries}):
        stray.unlink()
    return manifest


def stale(manifest: dict[str, Any], root: Path = ROOT, gallery: Path = GALLERY) -> list[str]:
    """One line per stale picture or changed source; [] when every picture matches what would draw it now."""
    problems = []
    changed = [rel for rel, digest in manifest.get("sources", {}).items() if file_digest(rel, root) != digest]
    if changed:
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        problems.append(f"every picture: sources changed since it was drawn: {shown}")
    recorded = manifest.get("pictures", {})
    wanted = pictures()
    for picture in wanted:
        entry = recorded.get(picture.name)
        if entry is None:
            problems.append(f"{picture.name}: not drawn yet")
        elif entry["recipe"] != picture.recipe_digest():
            problems.append(f"{picture.name}: its recipe (files, commands or composer) changed")
        elif png_digest(gallery / f"{picture.name}.png") != entry["png"]:
            problems.append(f"{picture.name}: docs/gallery/{picture.name}.png is not the file the gallery drew")
    for name in sorted(set(recorded) - {p.name for p in wanted}):
        problems.append(f"{name}: in the manifest but no longer a picture")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="name stale pictures; exit 1 if any")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="draw only these pictures")
    args = parser.parse_args()
    if args.check:
        problems = stale(json.loads(MANIFEST.read_text(encoding="utf-8")))
        for line in problems:
            print(line)
        if problems:
            raise SystemExit("stale pictures: run python scripts/gallery.py")
        print("every picture is up to date")
        return
    manifest = draw(set(args.only) if args.only else None)
    total = sum(entry["bytes"] for entry in manifest["pictures"].values())
    print(f"{len(manifest['pictures'])} pictures, {total / 1e6:.2f} MB, {len(manifest['sources'])} sources")


if __name__ == "__main__":
    main()
