"""Baselines of the table-extraction task on a real tiny build: they see the map's regions and legend, never the
gold cells; the prior learns from the train split only and follows it; its expected score under no region
information (the permutation null) is stated exactly; `mapgen eval --baseline prior` reports it."""

from __future__ import annotations

import copy
import dataclasses
import random

import pytest
from helpers import build_tiny

from mapgen.benchmark import load_benchmark
from mapgen.tasks.extraction.baselines import (
    QUARTERS,
    class_at,
    class_position,
    learn_prior,
    prior_replies,
    random_replies,
    view_of,
)
from mapgen.tasks.extraction.parse import parse_table
from mapgen.tasks.extraction.scores import permutation_null, score_table, score_tables, summarize

CONFIG = {
    "name": "xbase-test",
    "seed": 0,
    "countries": [
        {"name": "usa", "maps": 3},
        {"name": "india", "maps": 2, "statistics": {"curated": ["literacy_2011"]}},  # Ladakh N/A
    ],
    "counterfactual": {"country": "usa", "maps": 1, "kinds": ["shuffled"]},
    "questions": {"per_template": 1, "per_image": 1},
    "tasks": ["vqa", "extraction"],
    "split": {"ratios": {"train": 0.5, "test": 0.5}},
}


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return load_benchmark(build_tiny(tmp_path_factory, CONFIG, "xbase"), finished=True)


@pytest.fixture(scope="module")
def split(bench):
    train = [t for t in bench.tasks.get("extraction", []) if t["split"] == "train"]
    test = [t for t in bench.tasks.get("extraction", []) if t["split"] == "test"]
    assert train and test and {t["map_type"] for t in test} == {"discrete", "continuous"}
    return train, test


def shuffled_gold(tables, seed=0):
    """The tables with their gold cells (class / value) shuffled among the rows of every table of a map type,
    and each table's rows' cells re-dealt: nothing a model sees changes, every gold fact does."""
    rng = random.Random(seed)
    out = copy.deepcopy(tables)
    for key in ("class", "value"):
        rows = [r for t in out for r in t["rows"] if key in r]
        cells = [r[key] for r in rows]
        rng.shuffle(cells)
        for r, c in zip(rows, cells):
            r[key] = c
    return out


def changed_gold(tables):
    """Every gold cell moved to another class (the next one up, cyclically) or to the other end of the bar."""
    out = copy.deepcopy(tables)
    for t in out:
        for r in t["rows"]:
            if "class" in r:
                r["class"] = t["classes"][(t["classes"].index(r["class"]) + 1) % len(t["classes"])]
            elif r.get("value") is not None:
                r["value"] = t["vmax"] + t["vmin"] - r["value"]
    return out


def cells(reply, kind):
    return dict(parse_table(reply, kind).rows)


# ------------------------------------------------------------------------------------------- what they see


def test_views_hold_no_gold_and_every_drawn_region(bench, split) -> None:
    _, test = split
    for t in test:
        view = view_of(t)
        assert view == view_of(shuffled_gold([t])[0]) == view_of(changed_gold([t])[0])
        drawn = bench.map_json(t["map_id"])["regions"]
        assert sorted(c for c, _ in view.regions) == sorted(drawn)  # legible or not: the model can't tell
    names = {f.name for f in dataclasses.fields(view)}  # the legend and the regions, no per-region cell
    assert names == {"question_id", "map_type", "country", "regions", "classes", "vmin", "vmax"}


def test_random_does_not_move_when_held_out_gold_is_shuffled_or_changed(split) -> None:
    _, test = split
    base = random_replies(test, seed=3)
    assert base == random_replies(shuffled_gold(test), seed=3) == random_replies(changed_gold(test), seed=3)
    assert base != random_replies(test, seed=4)


def test_random_cells_come_from_the_legend(split) -> None:
    _, test = split
    replies = random_replies(test, seed=1)
    for t in test:
        read = cells(replies[t["question_id"]], t["map_type"])
        assert {r["region"] for r in t["rows"]} <= set(read)  # (+ illegible ones, which scoring ignores)
        for cell in read.values():
            if t["map_type"] == "discrete":
                assert cell in t["classes"]
            else:
                assert t["vmin"] <= float(cell) <= t["vmax"]


# ------------------------------------------------------------------------------------------- prior


def test_prior_never_reads_held_out_gold(split) -> None:
    train, test = split
    base = prior_replies(test, train)
    assert base == prior_replies(changed_gold(test), train) == prior_replies(shuffled_gold(test), train)
    with pytest.raises(ValueError, match="train split only"):
        learn_prior(train + test[:1])
    with pytest.raises(ValueError, match="no train gold tables"):
        prior_replies(test, [])


def test_prior_moves_with_the_train_split(split) -> None:
    train, test = split
    assert prior_replies(test, train) != prior_replies(test, changed_gold(train))


def test_prior_follows_a_region_always_highest_in_train(split) -> None:
    """Train on copies of every built table (relabelled train) in which Texas is the highest class / the top of the
    bar: the prior writes the highest class of each held-out legend / the top of each held-out bar for Texas."""
    train, test = split
    forced = copy.deepcopy(train + test)
    for t in forced:
        t["split"] = "train"
        for r in t["rows"]:
            if r["code"] == "TX" and "class" in r:
                r["class"] = [c for c in t["classes"] if c != "N/A"][-1]
            elif r["code"] == "TX":
                r["value"] = t["vmax"]
    replies = prior_replies(test, forced)
    usa = [t for t in test if t["country"] == "usa"]
    assert usa
    for t in usa:
        name = next(r["region"] for r in (*t["rows"], *t["omitted"]) if r["code"] == "TX")
        got = cells(replies[t["question_id"]], t["map_type"])[name]
        if t["map_type"] == "discrete":
            assert got == [c for c in t["classes"] if c != "N/A"][-1]
        else:
            assert float(got) == pytest.approx(t["vmax"], rel=1e-5)


def test_prior_writes_na_only_where_the_legend_shows_it(split) -> None:
    train, test = split
    all_na = copy.deepcopy(train)
    for t in all_na:
        for r in t["rows"]:
            r.update({"class": "N/A"} if "class" in r else {"value": None})
        if t["map_type"] == "discrete":
            t["classes"] = [*t["classes"], "N/A"] if "N/A" not in t["classes"] else t["classes"]
    replies = prior_replies(test, all_na)
    for t in test:
        read = set(cells(replies[t["question_id"]], t["map_type"]).values())
        if t["map_type"] == "continuous" or "N/A" in t["classes"]:
            assert read == {"N/A"}
        else:
            assert "N/A" not in read and read <= set(t["classes"])


def test_class_positions_in_quarters() -> None:
    assert [class_position(c, ["a", "b", "c"]) for c in "abc"] == [0, 2, 4]
    assert [class_position(c, list("abcdef")) for c in "abcdef"] == [0, 1, 2, 2, 3, 4]
    assert class_position("N/A", ["a", "b", "N/A"]) == "N/A"
    for k in range(2, 8):
        legend = [f"c{i}" for i in range(k)]
        assert class_at(0, legend) == legend[0] and class_at(QUARTERS, legend) == legend[-1]
        if k <= QUARTERS + 1:  # up to five classes every class has its own position
            assert [class_at(class_position(c, legend), legend) for c in legend] == legend


# ------------------------------------------------------------------------------------------- expected score


def test_permutation_null_is_the_share_of_matching_gold(split) -> None:
    """The gold table itself as a reply: under shuffled region identity it scores Σ_c (n_c / n)² (discrete)."""
    _, test = split
    for t in (t for t in test if t["map_type"] == "discrete"):
        n = len(t["rows"])
        shares = [sum(r["class"] == c for r in t["rows"]) / n for c in t["classes"]]
        assert permutation_null(t, t["ground_truth"]) == pytest.approx(sum(s * s for s in shares))


def test_permutation_null_matches_shuffling(split) -> None:
    """Monte Carlo: the prior's mean score over random shuffles of each table's gold cells tends to its null."""
    train, test = split
    replies = prior_replies(test, train)
    t = max(test, key=lambda t: len(t["rows"]))
    rng = random.Random(0)
    key = "class" if t["map_type"] == "discrete" else "value"
    runs = []
    for _ in range(400):
        moved = copy.deepcopy(t)
        values = [r[key] for r in moved["rows"]]
        rng.shuffle(values)
        for r, v in zip(moved["rows"], values):
            r[key] = v
        runs.append(score_table(moved, replies[t["question_id"]]).main)
    assert sum(runs) / len(runs) == pytest.approx(permutation_null(t, replies[t["question_id"]]), abs=0.03)


# ------------------------------------------------------------------------------------------- eval runs


def test_eval_prior_baseline_scores_the_held_out_tables(bench, split, tmp_path) -> None:
    from mapgen.evaluation import Baseline, run_eval

    train, test = split
    report = run_eval(bench, Baseline("prior"), out_dir=tmp_path / "prior", plots=False)
    summary = report.extra["extraction"]
    assert report.extra["split"] == "test" and summary["n"] == len(test)
    own = summarize(score_tables(test, prior_replies(test, train)), test)
    assert summary["score"] == pytest.approx(own["score"])
    assert summary["prior"]["score"] == pytest.approx(own["score"])  # the reference row is the same baseline
    text = (tmp_path / "prior" / "tables.md").read_text(encoding="utf-8")
    assert "| discrete · prior (train split) |" in text and "| continuous · random (empirical) |" in text


def test_vqa_random_baseline_never_reads_the_map_values(eval_bench) -> None:
    """The VQA random baseline reads each map's region names and legend (what the image shows), not its values:
    every value in every map JSON replaced (N/A and zeros) leaves its answers unchanged."""
    from mapgen.eval.baselines import random_baseline

    b = load_benchmark(eval_bench)

    def blanked(map_id):
        data = copy.deepcopy(b.spec(map_id))
        values = data["spec"]["values"]
        data["spec"]["values"] = {code: (None if i % 2 else 0.0) for i, code in enumerate(values)}
        return data

    assert random_baseline(b.questions, blanked, seed=2) == random_baseline(b.questions, b.spec, seed=2)
