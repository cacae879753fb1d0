"""Words and legend-usability figures of a built benchmark (issue 14 items 7, 8 and "legends no one can use").

    python benchmarks/words_figures.py BENCH_DIR

Prints, over every rendered map's JSON (the spec and pixel facts the build wrote):

- ``titles_with_generator_words``: titles naming the generator ("Synthetic lognormal index");
- ``titles_without_unit``: maps whose statistic has a unit that the printed title does not show (and maps whose
  statistic has no unit at all, counted apart as ``stats_without_unit``);
- ``counterfactual_codes_read_as_legend_words``: regions of renamed maps whose drawn code or name is a legend or
  answer word (NA, N/A, No data, None, Yes, No), and ``duplicate_counterfactual_codes`` on one map;
- ``mixed_label_legends``: discrete legends labelled by data ranges that also hold an empty class (which can only
  be labelled by its break bounds), out of ``discrete_maps``;
- ``legends_with_illegible_only_class``: discrete legends with a class whose members are all illegible regions.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

from mapgen.data.statistic import shows_unit
from mapgen.geo.names import normalize_name
from mapgen.legend.grammar import NA_WORDS

GENERATOR_WORDS = ("synthetic", "lognormal", "uniform", "bimodal", "heavy-tailed", "normal index", "normal share")
LEGEND_WORDS = {normalize_name(w) for w in (*NA_WORDS, "yes", "no")} - {""}


def class_members(spec: dict) -> list[list[str]]:
    """Region codes per discrete class (upper-inclusive bins on the legend's breaks, as the legend defines)."""
    breaks = np.asarray(spec["legend"]["breaks"], dtype=float)
    out: list[list[str]] = [[] for _ in breaks]
    for code, value in spec["values"].items():
        if value is not None and not (isinstance(value, float) and math.isnan(value)):
            out[min(int(np.searchsorted(breaks, value, side="left")), len(breaks) - 1)].append(code)
    return out


def _legend_figures(rec: dict, out: dict[str, int]) -> None:
    spec = rec["spec"]
    if spec["legend"]["kind"] != "discrete" or not spec["legend"].get("breaks"):
        return
    out["discrete_maps"] += 1
    members = class_members(spec)
    by_data = (spec["legend"].get("meta") or {}).get("label_bounds", "data") == "data"
    out["mixed_label_legends"] += by_data and any(not m for m in members)
    legible = {c: r.get("legible", True) for c, r in rec["regions"].items()}
    out["legends_with_illegible_only_class"] += any(m and not any(legible[c] for c in m) for m in members)


def _word_figures(rec: dict, out: dict[str, int]) -> None:
    spec = rec["spec"]
    title, unit = spec["title"] or "", spec["stat"].get("unit", "")
    out["titles_with_generator_words"] += any(w in title.lower() for w in GENERATOR_WORDS)
    out["stats_without_unit"] += not unit
    out["titles_without_unit"] += bool(unit) and not shows_unit(title, unit)
    cf = spec.get("counterfactual") or {}
    labels, names = cf.get("labels") or {}, cf.get("names") or {}
    out["renamed_maps"] += bool(labels)
    out["counterfactual_codes_read_as_legend_words"] += sum(
        normalize_name(w) in LEGEND_WORDS for w in (*labels.values(), *names.values()))
    out["duplicate_counterfactual_codes"] += len(labels) - len(set(labels.values()))


def figures(bench: Path) -> dict[str, int]:
    keys = ("maps", "titles_with_generator_words", "titles_without_unit", "stats_without_unit", "renamed_maps",
            "counterfactual_codes_read_as_legend_words", "duplicate_counterfactual_codes", "discrete_maps",
            "mixed_label_legends", "legends_with_illegible_only_class")
    out = dict.fromkeys(keys, 0)
    for path in sorted((bench / "maps").glob("*.json")):
        rec = json.loads(path.read_text())
        if "spec" not in rec:
            continue
        out["maps"] += 1
        _word_figures(rec, out)
        _legend_figures(rec, out)
    return out


if __name__ == "__main__":
    print(json.dumps(figures(Path(sys.argv[1])), indent=1))
