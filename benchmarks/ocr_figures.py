"""OCR figure (issue 14, Done when): how many legend labels and region labels an off-the-shelf OCR engine reads
exactly on a sample of annotated maps of a built benchmark.

    python benchmarks/ocr_figures.py BENCH_DIR [--maps 40] [--seed 0] [--scale 3] [--failures]

Engine: Tesseract 5 (the ``tesseract`` binary, English model, LSTM engine), one run per kind of crop (a list
file): ``--psm 7`` (one line) with a character whitelist per kind (region labels: the atlases' code alphabet A-Z;
legend labels: what the legend grammar writes), see :func:`engine_setup`. Crops come from the pixel boxes the
renderer records in each map's JSON: a discrete legend entry's label is its item box right of the swatch, a
colour-bar tick label its own text box, a region label its label box. Each crop becomes greyscale, is upscaled
(Lanczos; region crops ``--scale`` times, legend crops LEGEND_SCALE times) and binarised: a region label (black
or white text with a halo of the other colour) keeps its near-white pixels on a dark fill and its near-black ones
otherwise (:func:`text_pixels`); legend text is cut at the grey halfway between the crop's darkest and lightest
pixel (the minority side is the text). Then it is padded with white (a share of its height). ``--plain`` is the
earlier set-up: every crop ``--psm 7``, no whitelist, ``--scale`` times, mid-grey cut, 10 px of white. A reading counts when it
equals the drawn text after collapsing whitespace and writing every dash as ``-``. Maps are drawn at random
(``--seed``) among the annotated maps (every variant with region labels: annotated, hatched, counterfactual).
Prints a JSON summary: legend and inside / callout region labels read exactly, per renderer and map variant.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

MARGIN_PX = 0  # the recorded boxes already hold 1 px of padding around the ink
#: Grey level past which a pixel counts as the label's text (black or white text; halo and fill fall short of it).
TEXT_CUT = 170
PAD_PX = 10  # white border (pixels of the upscaled crop) with --plain
#: Otherwise, per kind: white border as a share of the crop's upscaled height on every side.
REGION_PAD_SHARE, LEGEND_PAD_SHARE = 0.1, 0.5
#: Upscaling of legend crops (region crops: --scale): at 4x the 15 px legend digits grow past the size
#: Tesseract reads best and 7 turns into 1 or /.
LEGEND_SCALE = 3
#: Page-segmentation modes: 7 = one line of text (psm 8, one word, read fewer region codes: 92.1% vs 93.7%).
REGION_PSM, LEGEND_PSM = "7", "7"
#: Region labels are atlas codes: upper-case Latin letters (US postal, India ISO 3166-2, China GB/T 2260 codes).
REGION_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: Legend labels (mapgen.legend.grammar writing side): digits, separators, signs, %, the unit letters k M B T,
#: "to" of negative ranges and "N/A".
LEGEND_CHARS = "0123456789.,-–%<>/+ kMBTtoNA"
DASHES = re.compile(r"[‐‑‒–—−-]")


def normalise(text: str) -> str:
    """Whitespace collapsed, every dash written ``-``."""
    return DASHES.sub("-", " ".join(text.split()))


def sample_maps(bench: Path, n: int, seed: int) -> list[Path]:
    """``n`` map JSONs drawn at random among those with region labels."""
    paths = [p for p in sorted((bench / "maps").glob("*.json"))
             if not p.name.endswith(".mask.json") and json.loads(p.read_text()).get("labels")]
    if not paths:
        raise SystemExit(f"{bench}: no annotated maps (build a benchmark with region labels first).")
    rng = np.random.default_rng(seed)
    return [paths[i] for i in sorted(rng.choice(len(paths), size=min(n, len(paths)), replace=False))]


def text_crops(record: dict) -> list[tuple[str, str, list[float]]]:
    """(kind, drawn text, pixel box) of every legend label and region label of a map."""
    crops = []
    for item in record["legend_items"]:
        if "label" not in item or not ("box" in item or "text_box" in item):
            continue
        x1, y1, x2, y2 = item.get("text_box") or item["box"]
        if "swatch" in item:
            x1 = item["swatch"][2] + MARGIN_PX + 2  # clear of the swatch frame
        crops.append(("legend", item["label"], [x1, y1, x2, y2]))
    for label in record["labels"].values():
        crops.append((f"region_{label['kind']}", label["text"], label["box"]))
    return crops


def prepare(image: Image.Image, b: list[float], scale: int, pad_share: float | None = None,
            haloed: bool = False) -> Image.Image:
    """The crop of ``b`` (plus margin), greyscale with dark text, upscaled and padded (``pad_share`` of its height
    on every side; None: PAD_PX)."""
    x1, y1, x2, y2 = b
    box = (max(0, int(x1) - MARGIN_PX), max(0, int(y1) - MARGIN_PX),
           min(image.width, int(np.ceil(x2)) + MARGIN_PX), min(image.height, int(np.ceil(y2)) + MARGIN_PX))
    crop = ImageOps.grayscale(image.crop(box))
    crop = crop.resize((crop.width * scale, crop.height * scale), Image.Resampling.LANCZOS)
    px = np.asarray(crop, dtype=float)
    if haloed:  # region labels: black or white text with a halo of the other colour
        ink = text_pixels(px)
    else:  # legend text on the page: the minority side of the mid-grey threshold is the text
        ink = px < (px.min() + px.max()) / 2
        if ink.mean() > 0.5:
            ink = ~ink
    binary = Image.fromarray(np.where(ink, 0, 255).astype(np.uint8))
    return ImageOps.expand(binary, border=PAD_PX if pad_share is None else round(pad_share * binary.height), fill=255)


def text_pixels(px: np.ndarray) -> np.ndarray:
    """The text's pixels: labels are black or white with a halo of the other (renderer rule: the one that
    contrasts with the fill), so on a fill darker than mid-grey the text is the near-white pixels, otherwise the
    near-black ones; the halo and the fill fall on the other side of the cut."""
    if np.median(px) < 128:
        return px > TEXT_CUT
    return px < 255 - TEXT_CUT


def engine_setup(kind: str, plain: bool) -> tuple[str, str | None]:
    """Page-segmentation mode and character whitelist for one kind of crop (``plain``: ``--psm 7``, none)."""
    if plain:
        return "7", None
    if kind.startswith("region"):
        return REGION_PSM, REGION_CHARS
    return LEGEND_PSM, LEGEND_CHARS


def tesseract(paths: list[Path], workdir: Path, psm: str = "7", whitelist: str | None = None) -> list[str]:
    """One Tesseract run over images (``--psm``, optional character whitelist); the text of each, in order."""
    listing = workdir / f"images-{len(list(workdir.glob('images-*')))}.txt"
    listing.write_text("\n".join(str(p) for p in paths) + "\n")
    extra = ["-c", f"tessedit_char_whitelist={whitelist}"] if whitelist else []
    out = subprocess.run(["tesseract", str(listing), "stdout", "--psm", psm, "-l", "eng", *extra],
                         capture_output=True, text=True, check=True).stdout
    pages = out.split("\f")
    if len(pages) < len(paths):
        raise SystemExit(f"tesseract returned {len(pages)} pages for {len(paths)} crops")
    return [p.strip() for p in pages[: len(paths)]]


def figures(bench: Path, n: int, seed: int, scale: int, failures: bool, plain: bool = False) -> dict:
    rows = []
    with tempfile.TemporaryDirectory(prefix="ocr-") as tmp:
        work, files = Path(tmp), []
        for path in sample_maps(bench, n, seed):
            record = json.loads(path.read_text())
            image = Image.open(path.with_suffix(".png")).convert("RGB")
            meta = {"map_id": path.stem, "renderer": record["render"]["renderer"],
                    "variant": path.stem.rsplit("-", 1)[-1]}
            for kind, text, b in text_crops(record):
                files.append(work / f"{len(files):05d}.png")
                pad = None if plain else REGION_PAD_SHARE if kind.startswith("region") else LEGEND_PAD_SHARE
                times = scale if plain or kind.startswith("region") else LEGEND_SCALE
                prepare(image, b, times, pad, haloed=not plain and kind.startswith("region")).save(files[-1])
                rows.append(meta | {"kind": kind, "text": text})
        for setup in sorted({engine_setup(r["kind"], plain) for r in rows}, key=str):
            chosen = [i for i, r in enumerate(rows) if engine_setup(r["kind"], plain) == setup]
            for i, read in zip(chosen, tesseract([files[i] for i in chosen], work, *setup)):
                rows[i]["read"] = read
                rows[i]["exact"] = normalise(read) == normalise(rows[i]["text"])
    return summarize(rows, n_maps=len({r["map_id"] for r in rows}), failures=failures, plain=plain)


def _rate(rows: list[dict]) -> dict:
    ok = sum(r["exact"] for r in rows)
    return {"labels": len(rows), "exact": ok, "rate": round(ok / len(rows), 4) if rows else None}


def summarize(rows: list[dict], n_maps: int, failures: bool, plain: bool = False) -> dict:
    engine = "tesseract --psm 7 (eng, LSTM)" if plain else (
        f"tesseract (eng, LSTM): regions --psm {REGION_PSM} whitelist {REGION_CHARS!r}, "
        f"legend --psm {LEGEND_PSM} whitelist {LEGEND_CHARS!r}")
    out: dict = {"maps": n_maps, "engine": engine}
    for kind in ("legend", "region_inside", "region_callout"):
        sel = [r for r in rows if r["kind"] == kind]
        out[kind] = _rate(sel) | {
            "by_renderer": {k: _rate([r for r in sel if r["renderer"] == k]) for k in sorted({r["renderer"] for r in sel})},
            "by_variant": {k: _rate([r for r in sel if r["variant"] == k]) for k in sorted({r["variant"] for r in sel})},
        }
        misses = Counter(f"{r['text']!r} -> {r['read']!r}" for r in sel if not r["exact"])
        out[kind]["common_misreads"] = dict(misses.most_common(8))
    if failures:
        out["failures"] = [r for r in rows if not r["exact"]]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench", type=Path)
    ap.add_argument("--maps", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scale", type=int, default=3)
    ap.add_argument("--failures", action="store_true", help="List every label read wrongly.")
    ap.add_argument("--plain", action="store_true",
                    help="The earlier set-up: --psm 7 for every crop, no whitelist, 10 px padding.")
    args = ap.parse_args()
    print(json.dumps(figures(args.bench, args.maps, args.seed, args.scale, args.failures, args.plain), indent=1))


if __name__ == "__main__":
    main()
