"""Make the worked example the ``fewshot_image`` prompt shows, with the real pipeline, once.

Gridland is an imaginary 3×3 country (so it is never a benchmark's country): a user atlas of nine 1° squares,
a fixed statistic, drawn in each map variant (discrete, continuous, hatched) by :func:`mapgen.render.render`,
and asked every template by the question engine (:func:`mapgen.questions.generate_questions`), so the answers
are computed, never typed. Writes ``<variant>.png`` and ``<variant>.json`` (the country and the questions with
their answers) into ``templates/prompts/examples/``, where :mod:`mapgen.eval.examples` reads them. The same
mapgen gives the same bytes; rerun it when rendering or the templates change:

    python scripts/make_prompt_examples.py [-o templates/prompts/examples]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from mapgen.data.statistic import StatInfo, Statistic
from mapgen.files import write_bytes_atomic, write_json_atomic
from mapgen.geo.vector_file import load_user_atlas
from mapgen.questions import generate_questions
from mapgen.render import render
from mapgen.spec import make_spec

OUT = Path(__file__).resolve().parent.parent / "templates" / "prompts" / "examples"
VARIANTS = ("discrete", "continuous", "hatched")
COUNTRY, COUNTRY_NAME = "gridland", "Gridland (an imaginary country)"
PER_TEMPLATE = 3
#: Question fields the prompt and the scorer use (the program trace is left out).
KEEP = ("question_id", "map_id", "template_id", "mapwise_template", "question", "answer", "accepted_answers",
        "bounds", "answer_type", "map_type", "country", "relative_region", "hatched", "annotated", "text_variant")
#: (name, column, row, value in %) of Gridland's regions (row 0 is the south).
REGIONS = (
    ("Arvia", 0, 2, 12.0), ("Belmora", 1, 2, 25.5), ("Calden", 2, 2, 37.0),
    ("Dorvik", 0, 1, 41.5), ("Elmswald", 1, 1, 18.0), ("Fenmark", 2, 1, 55.0),
    ("Galdor", 0, 0, 63.5), ("Hestia", 1, 0, 29.0), ("Istra", 2, 0, 47.5),
)


def _square(col: int, row: int) -> list[list[list[float]]]:
    x, y = 10.0 + col, 10.0 + row
    return [[[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1], [x, y]]]


def gridland_spec(folder: Path, variant: str):
    """Gridland's atlas (GeoJSON written into ``folder``) and its map spec in ``variant``."""
    features = [{"type": "Feature", "properties": {"name": name}, "geometry": {"type": "Polygon",
                                                                             "coordinates": _square(c, r)}}
                for name, c, r, _ in REGIONS]
    path = folder / f"{COUNTRY}.geojson"
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}), encoding="utf-8")
    atlas = load_user_atlas(path, title="Gridland")
    by_name = {name: value for name, _, _, value in REGIONS}
    values = {code: by_name[atlas.gdf.loc[code, "name"]] for code in atlas.codes}
    info = StatInfo(id="forest_cover", country=COUNTRY, title="Forest cover", unit="%", kind="percent")
    spec = make_spec(atlas, Statistic(values=values, info=info), legend="continuous" if variant == "continuous"
                     else "discrete", classes=4, hatched=variant == "hatched", map_id="example", seed=0)
    return atlas, spec


def make_example(variant: str, out: Path) -> tuple[Path, Path]:
    """Render Gridland in ``variant`` and write ``<variant>.png`` and ``<variant>.json`` into ``out``."""
    with tempfile.TemporaryDirectory() as tmp:
        atlas, spec = gridland_spec(Path(tmp), variant)
        rendered = render(spec, Path(tmp) / "map.png", atlas=atlas)
        questions = generate_questions(rendered.scene, per_template=PER_TEMPLATE, seed=0)
        png = write_bytes_atomic(out / f"{variant}.png", rendered.image.read_bytes())
    records = [{k: q.to_dict()[k] for k in KEEP} for q in questions]
    doc = {"country": COUNTRY, "country_name": COUNTRY_NAME, "variant": variant, "questions": records}
    return png, write_json_atomic(out / f"{variant}.json", doc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", type=Path, default=OUT, help="Folder to write into.")
    args = parser.parse_args()
    for variant in VARIANTS:
        for path in make_example(variant, args.out):
            print(path)


if __name__ == "__main__":
    main()
