"""Worked examples for the ``fewshot_image`` prompt: a map rendered by mapgen plus a computed question/answer.

The example map shows a country that is NOT in the benchmark: the first of the built-in atlases (usa, india,
china) absent from it, else a small synthetic country (a 3×3 grid of invented regions, loaded as a user atlas
through :func:`mapgen.geo.user.load_user_atlas`). The map is rendered with :func:`mapgen.render.render` in the
variant of the question asked (discrete, continuous or hatched), and its questions come from
:func:`mapgen.questions.generate_questions` on the rendered scene, so the example answer is computed by the
question engine, never typed. The example question is one of the same template as the real question when the
example map has one, else one of the same answer type.

Everything is deterministic (fixed statistic, seed 0) and cached on disk under
``$MAPGEN_CACHE/examples/`` (default ``~/.cache/mapgen/examples/``; ``$XDG_CACHE_HOME`` is honoured): a
folder per (mapgen version, country, variant) holding ``map.png`` and ``questions.jsonl``, written atomically.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from mapgen.questions.record import Question

BUILTIN_COUNTRIES: tuple[str, ...] = ("usa", "india", "china")
SYNTHETIC_COUNTRY = "gridland"
CACHE_ENV = "MAPGEN_CACHE"
VARIANTS: tuple[str, ...] = ("discrete", "continuous", "hatched")
EXAMPLES_PER_TEMPLATE = 3
CACHE_FORMAT = "e1"
"""Part of the cache folder name: bump it when what is cached changes."""

_SYNTHETIC_REGIONS: tuple[tuple[str, int, int, float], ...] = (
    ("Arvia", 0, 2, 12.0),
    ("Belmora", 1, 2, 25.5),
    ("Calden", 2, 2, 37.0),
    ("Dorvik", 0, 1, 41.5),
    ("Elmswald", 1, 1, 18.0),
    ("Fenmark", 2, 1, 55.0),
    ("Galdor", 0, 0, 63.5),
    ("Hestia", 1, 0, 29.0),
    ("Istra", 2, 0, 47.5),
)
"""(name, column, row, value in %) of the synthetic country's regions (row 0 is the south)."""

_BUILTIN_STAT: dict[str, str] = {
    "usa": "population_2020",
    "india": "population_2011",
    "china": "population_2020",
}


@dataclass(frozen=True)
class Example:
    """One worked example: the rendered image, the question and its computed answer as a model should write it."""

    image: Path
    question: Question
    answer_text: str
    country: str
    country_name: str

    @property
    def text(self) -> str:
        """The example question text."""
        return self.question.question


def cache_root() -> Path:
    """``$MAPGEN_CACHE`` or ``$XDG_CACHE_HOME/mapgen`` or ``~/.cache/mapgen``."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mapgen"


def example_country(benchmark_countries: Iterable[str]) -> str:
    """The first built-in country absent from the benchmark, else the synthetic one."""
    present = {str(c).lower() for c in benchmark_countries}
    return next((c for c in BUILTIN_COUNTRIES if c not in present), SYNTHETIC_COUNTRY)


def variant_of(question: Question) -> str:
    """``hatched`` for a hatched discrete map, else the map type."""
    return "hatched" if question.hatched and question.map_type == "discrete" else question.map_type


# ------------------------------------------------------------------------------------------- atlases


def _square(col: int, row: int, size: float = 1.0) -> list[list[list[float]]]:
    x, y = 10.0 + col * size, 10.0 + row * size
    return [[[x, y], [x + size, y], [x + size, y + size], [x, y + size], [x, y]]]


def write_synthetic_geojson(path: Path) -> Path:
    """The synthetic country as a GeoJSON file (3×3 grid of 1° squares)."""
    features = [
        {
            "type": "Feature",
            "properties": {"name": name},
            "geometry": {"type": "Polygon", "coordinates": _square(c, r)},
        }
        for name, c, r, _ in _SYNTHETIC_REGIONS
    ]
    path.write_text(json.dumps({"type": "FeatureCollection", "features": features}), encoding="utf-8")
    return path


def _synthetic_spec(folder: Path, variant: str):
    from mapgen.data.statistic import StatInfo, Statistic
    from mapgen.geo.user import load_user_atlas
    from mapgen.spec import make_spec

    atlas = load_user_atlas(
        write_synthetic_geojson(folder / f"{SYNTHETIC_COUNTRY}.geojson"), title="Gridland"
    )
    by_name = {name: value for name, _, _, value in _SYNTHETIC_REGIONS}
    values = {code: by_name[atlas.gdf.loc[code, "name"]] for code in atlas.codes}
    info = StatInfo(
        id="forest_cover", country=SYNTHETIC_COUNTRY, title="Forest cover", unit="%", kind="percent"
    )
    stat = Statistic(values=values, info=info)
    return atlas, _make(make_spec, atlas, stat, variant)


def _builtin_spec(country: str, variant: str):
    from mapgen.geo.atlas import load_atlas
    from mapgen.spec import make_spec

    atlas = load_atlas(country)
    return atlas, _make(make_spec, atlas, _BUILTIN_STAT[country], variant)


def _make(make_spec, atlas, stat, variant: str):
    legend = "continuous" if variant == "continuous" else "discrete"
    return make_spec(
        atlas, stat, legend=legend, classes=4, hatched=variant == "hatched", map_id="example", seed=0
    )


# ------------------------------------------------------------------------------------------- cache


def _version() -> str:
    try:
        from mapgen import __version__

        return str(__version__)
    except ImportError:  # pragma: no cover - a broken install
        return "0"


def _build(country: str, variant: str, folder: Path) -> None:
    """Render the example map and write its questions into ``folder``."""
    from mapgen.questions import generate_questions
    from mapgen.render import render

    folder.mkdir(parents=True, exist_ok=True)
    if country == SYNTHETIC_COUNTRY:
        atlas, spec = _synthetic_spec(folder, variant)
    else:
        atlas, spec = _builtin_spec(country, variant)
    rendered = render(spec, folder / "map.png", atlas=atlas)
    questions = generate_questions(rendered.scene, per_template=EXAMPLES_PER_TEMPLATE, seed=0)
    with (folder / "questions.jsonl").open("w", encoding="utf-8") as fh:
        for q in questions:
            fh.write(json.dumps(q.to_dict(), ensure_ascii=False, sort_keys=True) + "\n")


def example_folder(country: str, variant: str, cache_dir: Path | None = None) -> Path:
    """The cached example folder of ``country``/``variant``, rendered on first use."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown map variant {variant!r}; known: {', '.join(VARIANTS)}")
    root = (cache_dir or cache_root()) / "examples"
    folder = root / f"{_version()}-{CACHE_FORMAT}-{country}-{variant}"
    if (folder / "questions.jsonl").is_file() and (folder / "map.png").is_file():
        return folder
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=root))
    try:
        _build(country, variant, tmp)
        try:
            tmp.rename(folder)
        except OSError:  # another process finished first
            if not (folder / "questions.jsonl").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


@lru_cache(maxsize=32)
def _questions(folder: Path) -> tuple[Question, ...]:
    lines = (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return tuple(Question.from_dict(json.loads(line)) for line in lines if line.strip())


def _informative(question: Question) -> bool:
    """An answer worth showing: not an empty list, not zero, not a one-item ranking."""
    answer = question.answer
    if question.answer_type == "ranking":
        return isinstance(answer, list) and len(answer) > 1
    return answer not in ([], None, 0, "")


def pick_question(questions: Iterable[Question], target: Question) -> Question:
    """The example question for ``target``, by preference: same template, same answer type (not relative to a
    region first), anything; informative answers (:func:`_informative`) before the others at each step."""
    qs = list(questions)
    if not qs:
        raise ValueError("the example map has no questions")
    rules = (
        lambda q: q.template_id == target.template_id,
        lambda q: q.answer_type == target.answer_type and not q.relative_region,
        lambda q: q.answer_type == target.answer_type,
    )
    for rule in rules:
        found = [q for q in qs if rule(q)]
        if found:
            return next((q for q in found if _informative(q)), found[0])
    return qs[0]


def country_title(country: str) -> str:
    """How the prompt names the example country."""
    names = {
        "usa": "the USA",
        "india": "India",
        "china": "China",
        SYNTHETIC_COUNTRY: "Gridland (an imaginary country)",
    }
    return names.get(country, country)


def example_for(
    target: Question, benchmark_countries: Iterable[str] = (), cache_dir: Path | None = None
) -> Example:
    """The worked example for ``target`` on a map of a country absent from ``benchmark_countries``."""
    from mapgen.eval.baselines import format_answer

    country = example_country([*benchmark_countries, target.country])
    folder = example_folder(country, variant_of(target), cache_dir)
    question = pick_question(_questions(folder), target)
    return Example(
        image=folder / "map.png",
        question=question,
        answer_text=format_answer(question.answer, question.answer_type),
        country=country,
        country_name=country_title(country),
    )
