"""Baselines of the table-extraction task: replies written without looking at the map's colours.

Both baselines answer from a :class:`TableView` — what the image and the prompt show of a map, never its gold
cells: the regions drawn (every one, legible or not, by name), and the legend (its class labels, lowest first,
with the N/A swatch when the map shows one) or the colour bar's ends. :func:`view_of` reads it from a gold-table
record by dropping the gold cells (``class`` / ``value``); shuffling or changing gold cells cannot move a view.
Replies are Markdown tables (the format the prompt asks for) and go through the same parser and metrics as a
model's.

``random`` (:func:`random_replies`) — per region a class drawn uniformly from the legend's classes, or a value
uniform on ``[vmin, vmax]``; seeded per table. Its exact expectation is
:func:`mapgen.tasks.extraction.scores.chance`.

``prior`` (:func:`prior_replies`) — learned from the gold tables of the ``train`` split only, per region
(country + region code: the shape on the map, whatever name it carries):

- discrete and hatched maps: the most frequent *relative class position* of the region, in quarters of the
  legend (class ``i`` of ``k`` valued classes, lowest first, is position ``round(4·i/(k−1))``: 0 = lowest class,
  2 = middle, 4 = highest; ``N/A`` is its own outcome), restricted to the outcomes the held-out map's legend
  offers (``N/A`` only with an N/A swatch), ties to the smallest; written as the class at that position of the
  held-out legend (``round(position·(k−1)/4)``);
- continuous maps: ``N/A`` when the region had no data in most of its train tables, else the median of its
  relative bar positions ``(v − vmin)/(vmax − vmin)`` (the median minimises the expected absolute error),
  written as ``vmin + position·(vmax − vmin)`` of the held-out bar;
- a region absent from the train tables takes the pooled outcome of every train region of its map type.

Expected score of the prior: on statistics that carry no information about *which* region is high (each test
table's gold cells shuffled among its rows) it scores, per table, the mean over rows of the share of the table's
rows whose gold equals the row's prediction (:func:`mapgen.tasks.extraction.scores.permutation_null`) — about ``1/k``
for quantile legends, the chance level, but the largest class's share for a constant guess of it. What it scores
above that is how much the statistics repeat from the train split to the test split.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mapgen.tasks.extraction.parse import NA

QUARTERS = 4
"""Relative class positions are counted in quarters of the legend (0 lowest class … 4 highest)."""
TRAIN_SPLIT = "train"


@dataclass(frozen=True)
class TableView:
    """What a model is shown of one map for the extraction task: regions (code, name) and the legend."""

    question_id: str
    map_type: str
    country: str = ""
    regions: tuple[tuple[str, str], ...] = ()
    classes: tuple[str, ...] = ()
    vmin: float = 0.0
    vmax: float = 1.0


def view_of(record: Mapping[str, Any]) -> TableView:
    """The view of a gold-table record: its gold and omitted regions by name (sorted by code, so legibility does
    not order them) and its legend facts; the gold cells are not read."""
    drawn = (*record["rows"], *record.get("omitted", ()))
    regions = sorted((str(r.get("code") or r["region"]), str(r["region"])) for r in drawn)
    return TableView(
        question_id=str(record["question_id"]),
        map_type=str(record["map_type"]),
        country=str(record.get("country") or ""),
        regions=tuple(regions),
        classes=tuple(record.get("classes") or ()),
        vmin=float(record.get("vmin") or 0.0),
        vmax=float(record.get("vmax") or 0.0),
    )


def markdown_reply(view: TableView, cells: Iterable[str]) -> str:
    """A two-column Markdown table: one row per region of ``view`` with its cell."""
    head = "| Region | Class |" if view.map_type == "discrete" else "| Region | Value |"
    body = [f"| {name} | {cell} |" for (_, name), cell in zip(view.regions, cells)]
    return "\n".join([head, "| --- | --- |", *body])


def _value(x: float) -> str:
    return f"{x:.6g}"


# ------------------------------------------------------------------------------------------- random


def random_reply(view: TableView, rng: random.Random) -> str:
    """The random baseline's reply: a uniform legend class / a uniform value on the bar per region."""
    if view.map_type == "discrete":
        cells = [rng.choice(view.classes) for _ in view.regions]
    else:
        cells = [_value(rng.uniform(view.vmin, view.vmax)) for _ in view.regions]
    return markdown_reply(view, cells)


def random_replies(records: Iterable[Mapping[str, Any]], seed: int = 0) -> dict[str, str]:
    """Random-baseline replies for every table (seeded per table)."""
    views = [view_of(r) for r in records]
    return {v.question_id: random_reply(v, random.Random(f"{seed}:{v.question_id}")) for v in views}


# ------------------------------------------------------------------------------------------- prior


def class_position(label: str, classes: Sequence[str]) -> int | str:
    """The relative position (0..:data:`QUARTERS`) of ``label`` in a legend's valued classes, or ``N/A``."""
    valued = [c for c in classes if c != NA]
    if label == NA or label not in valued:
        return NA
    return round(QUARTERS * valued.index(label) / (len(valued) - 1)) if len(valued) > 1 else QUARTERS // 2


def class_at(position: int, classes: Sequence[str]) -> str:
    """The class of a legend at a relative position (0..:data:`QUARTERS`)."""
    valued = [c for c in classes if c != NA]
    return valued[round(position * (len(valued) - 1) / QUARTERS)]


def bar_position(value: float | None, vmin: float, vmax: float) -> float | str:
    """Where a value lies on the bar, 0 (vmin) to 1 (vmax); ``N/A`` for no data."""
    if value is None:
        return NA
    return (float(value) - vmin) / (vmax - vmin) if vmax > vmin else 0.5


@dataclass
class TablePrior:
    """Outcomes seen per (country, region code) in the train tables, per map type."""

    discrete: dict[tuple[str, str], Counter] = field(default_factory=dict)
    continuous: dict[tuple[str, str], list[Any]] = field(default_factory=dict)

    def add(self, record: Mapping[str, Any]) -> None:
        """Count the gold cells of one train table."""
        country = str(record.get("country") or "")
        for row in record["rows"]:
            key = (country, str(row["code"]))
            if record["map_type"] == "discrete":
                self.discrete.setdefault(key, Counter())[class_position(row["class"], record["classes"])] += 1
            else:
                position = bar_position(row.get("value"), float(record["vmin"]), float(record["vmax"]))
                self.continuous.setdefault(key, []).append(position)

    def discrete_cell(self, view: TableView, code: str) -> str:
        """The most frequent train position of the region that the held-out legend offers, as its class."""
        counts = self.discrete.get((view.country, code)) or sum(self.discrete.values(), Counter())
        allowed = [o for o in counts if o != NA or NA in view.classes]
        if not allowed:
            return class_at(QUARTERS // 2, view.classes)
        best = min(allowed, key=lambda o: (-counts[o], str(o)))
        return NA if best == NA else class_at(int(best), view.classes)

    def continuous_cell(self, view: TableView, code: str) -> str:
        """N/A when most train readings of the region were N/A, else the median position on the held-out bar."""
        seen = self.continuous.get((view.country, code)) or [p for ps in self.continuous.values() for p in ps]
        valued = [float(p) for p in seen if p != NA]
        if not valued or len(valued) * 2 < len(seen):
            return NA if seen else _value((view.vmin + view.vmax) / 2)
        return _value(view.vmin + statistics.median(valued) * (view.vmax - view.vmin))

    def reply(self, view: TableView) -> str:
        """The prior's reply to one held-out table."""
        cell = self.discrete_cell if view.map_type == "discrete" else self.continuous_cell
        return markdown_reply(view, [cell(view, code) for code, _ in view.regions])


def learn_prior(train: Iterable[Mapping[str, Any]]) -> TablePrior:
    """The prior of the train split's gold tables (records of other splits are refused)."""
    prior = TablePrior()
    for record in train:
        if record.get("split", TRAIN_SPLIT) != TRAIN_SPLIT:
            raise ValueError(f"the table prior learns from the train split only; got {record['question_id']!r} "
                             f"of split {record.get('split')!r}")
        prior.add(record)
    return prior


def prior_replies(records: Iterable[Mapping[str, Any]], train: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The prior's replies to ``records``, learned from the ``train`` gold tables."""
    if not train:
        raise ValueError("the table prior learns from a train split and this benchmark has no train gold tables "
                         "(give the config a split, e.g. split: {ratios: {train: 0.5, test: 0.5}})")
    prior = learn_prior(train)
    return {str(r["question_id"]): prior.reply(view_of(r)) for r in records}
