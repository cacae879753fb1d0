"""``questions.templates_per_image``: each image draws candidates from a slice of its map's template order, the
variants of a map take different slices, a map's counterfactual kinds the same one, and a config without the field
builds and hashes as before."""

from __future__ import annotations

from collections import defaultdict

import pytest

from mapgen.benchmark import read_json, unit_record_path
from mapgen.build import build
from mapgen.build.plan import plan
from mapgen.config import ConfigError, load_config
from mapgen.questions import load_templates
from mapgen.tasks.vqa.gold import offered_templates

CONFIG = {
    "name": "offer", "seed": 3,
    "countries": [{"name": "usa", "maps": 2}],
    "legend": {"types": ["discrete"]},
    "variants": {"annotated": True, "unannotated": True, "hatched": True},
    "counterfactual": {"country": "usa", "maps": 1, "kinds": ["original", "imaginary", "jumbled"]},
    "questions": {"per_image": 4, "templates_per_image": 7},
    "tasks": ["vqa"],
}


def test_offered_slices_cover_the_templates_once_per_map() -> None:
    templates = list(load_templates())
    n = len(templates) // 3 + 1  # three variants × n ≥ the templates
    slices = [offered_templates(templates, n, 11, v) for v in ("annotated", "unannotated", "hatched")]
    ids = [{t.id for t in s} for s in slices]
    assert all(len(s) == n for s in ids)
    assert not ids[0] & ids[1] and not ids[1] & ids[2]  # disjoint slices …
    assert ids[0] | ids[1] | ids[2] == {t.id for t in templates}  # … that cover every template
    assert [t.id for t in slices[0]] == [t.id for t in templates if t.id in ids[0]]  # the templates' own order
    assert offered_templates(templates, n, 11, "imaginary") == slices[0]  # a counterfactual: the annotated slice
    assert offered_templates(templates, n, 12, "annotated") != slices[0]  # another map, another order
    assert offered_templates(templates, "all", 11, "annotated") == templates
    assert offered_templates(templates, len(templates) + 5, 11, "hatched") == templates


def test_a_build_asks_each_image_only_its_slice(tmp_path) -> None:
    out = tmp_path / "bench"
    build(CONFIG, out, progress=False)
    config = load_config(CONFIG)
    templates = list(load_templates())
    by_image: dict[tuple[str, str, int], set[str]] = defaultdict(set)  # (map, variant, unit seed) → templates
    for unit in plan(config):
        for record in read_json(unit_record_path(out, unit.unit_id))["questions"]:
            by_image[(record["map_id"], record["variant"], unit.seed)].add(record["template_id"])
    assert len(by_image) >= 6
    cf_sets = []
    for (map_id, variant, seed), asked in by_image.items():
        offered = {t.id for t in offered_templates(templates, 7, seed, variant)}
        assert asked <= offered and len(asked) >= 2, map_id  # candidates only from the slice
        if map_id.startswith("cf-"):
            cf_sets.append(offered)
    assert len(cf_sets) == 3 and cf_sets[0] == cf_sets[1] == cf_sets[2]


def test_without_the_field_the_config_dumps_and_hashes_as_before() -> None:
    plain = {k: v for k, v in CONFIG.items() if k != "questions"} | {"questions": {"per_image": 4}}
    explicit = plain | {"questions": {"per_image": 4, "templates_per_image": "all"}}
    assert "templates_per_image" not in load_config(plain).model_dump()["questions"]
    assert load_config(plain).digest() == load_config(explicit).digest()
    assert load_config(CONFIG).digest() != load_config(plain).digest()


@pytest.mark.parametrize("bad", [0, -3, "some", 2.5])
def test_a_bad_value_is_refused_naming_the_field(bad) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(CONFIG | {"questions": {"per_image": 4, "templates_per_image": bad}})
    assert "templates_per_image" in str(info.value)
