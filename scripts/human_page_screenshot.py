"""The screenshot of the annotation page in docs/human-baseline.md, taken with headless Chromium.

    python scripts/human_page_screenshot.py [BENCH] [-o docs/images/human-annotation-page.png]

Without BENCH it builds a small benchmark (two USA maps) in a temporary folder. It samples a kit
(``mapgen human sample``), opens the page from disk with every host unresolvable, starts as annotator ``ana``,
skips to the first list question on a colour map, adds its first gold name and types the start of the next one (so the
autocomplete shows), and saves the 1280×800 window as a 256-colour PNG (web size). Chromium is driven over the
DevTools pipe by the tests' driver (``tests/chromium_pipe.py``, standard library only).
"""

from __future__ import annotations

import argparse
import base64
import io
import sys
import tempfile
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from chromium_pipe import CHROMIUM, Browser  # type: ignore[import-not-found]  # noqa: E402

from mapgen.build import build  # noqa: E402
from mapgen.human.kit import load_gold, write_kit  # noqa: E402

CONFIG = {"name": "annotation-page", "seed": 3, "countries": [{"name": "usa", "maps": 2}],
          "questions": {"per_image": 40}}
SIZE = (1280, 800)
ALT = 1


def take(kit: Path, out: Path, work: Path) -> None:
    """Drive the page of ``kit`` to a list question being answered and save the window to ``out``."""
    gold = {q.question_id: q for q in load_gold(kit)}
    (work / "downloads").mkdir(exist_ok=True)
    b = Browser(work / "profile", work / "downloads")
    try:
        b.page("Emulation.setDeviceMetricsOverride", width=SIZE[0], height=SIZE[1], deviceScaleFactor=1, mobile=False)
        b.open((kit / "index.html").as_uri())
        b.click("#annotator")
        b.type("ana")
        b.click("#begin")
        for _ in range(len(gold)):
            qid = b.js("document.body.dataset.question")
            q = gold[qid]
            if q.answer_type == "list" and len(q.answer) >= 2 and not q.hatched:  # a colour map shows best
                break
            b.key("ArrowRight", 39, ALT)  # skip
        else:
            raise SystemExit("the kit holds no list question of two names or more on a colour map; give another BENCH")
        first, second = (str(n) for n in list(gold[qid].answer)[:2])
        b.click("#answer")
        b.type(first)
        b.key("Enter", 13)
        b.type(second[:3])
        b.wait("document.querySelectorAll('#suggestions button').length > 0")
        shot = b.page("Page.captureScreenshot", format="png")["data"]
    finally:
        b.close()
    image = Image.open(io.BytesIO(base64.b64decode(shot))).convert("RGB")
    out.parent.mkdir(parents=True, exist_ok=True)
    image.quantize(256, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench", nargs="?", type=Path, help="a built benchmark (default: build a small one)")
    parser.add_argument("-o", "--out", type=Path, default=ROOT / "docs" / "images" / "human-annotation-page.png")
    args = parser.parse_args()
    if CHROMIUM is None:
        raise SystemExit("chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="mapgen-shot-") as tmp:
        work = Path(tmp)
        bench = args.bench
        if bench is None:
            bench = work / "bench"
            build(CONFIG, bench, progress=False)
        write_kit(bench, work / "kit", n=40, seed=0)
        take(work / "kit", args.out, work)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
