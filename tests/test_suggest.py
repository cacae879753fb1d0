"""One "did you mean" (mapgen.suggest): its policy, and every site that refuses an unknown name with it — a close
name suggested as ``(did you mean 'X'?)``, none close listed as ``(valid: …)``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from mapgen.data.curated import load_curated
from mapgen.geo.atlas import load_atlas
from mapgen.legend.colors import resolve_colormap_name
from mapgen.render.style import load_style, parse_style
from mapgen.suggest import LISTED, close_matches, did_you_mean, suggestion
from mapgen.tasks import get_task


def test_an_exact_case_insensitive_match_is_the_answer() -> None:
    assert close_matches("tx", ["TN", "TX", "UT"]) == ["TX"]
    assert close_matches("CAPTION", ["caption", "captions"]) == ["caption"]


def test_short_codes_find_their_neighbours_shared_start_first() -> None:
    assert close_matches("TZ", ["AZ", "TN", "TX", "UT", "VT"])[:2] == ["TN", "TX"]
    assert close_matches("T", ["CA", "TX"]) == ["TX"]


def test_long_names_find_the_misspelt_one_and_only_those_about_as_close() -> None:
    assert close_matches("Kalifornia", ["California", "Colorado"]) == ["California"]
    assert close_matches("indai", ["usa", "india", "china"]) == ["india"]  # china is close, but much less
    assert close_matches("populaton_2020", ["population_2020", "population_2010", "gdp_2020"]) == [
        "population_2020", "population_2010"]
    assert close_matches("zzz", ["usa", "india"]) == []


def test_the_one_message_format() -> None:
    assert did_you_mean("form", ["from", "type"]) == " (did you mean 'from'?)"
    assert did_you_mean("zzz", ["vqa", "caption"]) == " (valid: vqa, caption)"
    many = [f"name{i:02d}" for i in range(30)]
    assert did_you_mean("zzz", many).endswith(f"name{LISTED - 1:02d}, … (30 in all))")
    assert suggestion([], []) == "" and suggestion(["a", "b"]) == " (did you mean 'a', 'b'?)"


def _message(call: Callable[[], object]) -> str:
    with pytest.raises(Exception) as err:  # noqa: PT011 - each site raises its own error type
        call()
    return str(err.value)


SITES = [  # (site, a call with a close name, its suggestion, a call with none close, the start of its listing)
    ("region", lambda: load_atlas("usa").resolve("Texsa"),
     "Unknown region 'Texsa' in United States (did you mean 'Texas'?)",
     lambda: load_atlas("usa").resolve("Atlantis"), "(valid: Alabama, Alaska"),
    ("region group", lambda: load_atlas("usa").group("west cost"), "(did you mean 'West Coast'?)",
     lambda: load_atlas("usa").group("zzz"), "(valid: "),
    ("atlas", lambda: load_atlas("indai"), "(did you mean 'india'?); or give a GeoJSON",
     lambda: load_atlas("mars"), "(valid: usa, india, china); or give"),
    ("task", lambda: get_task("captoin"), "unknown task 'captoin' (did you mean 'caption'?)",
     lambda: get_task("zzz"), "(valid: vqa, caption, grounding, extraction"),
    ("style key", lambda: parse_style("legend: {postion: top}"), "(did you mean 'legend.position'?)",
     lambda: parse_style("legend: {zzz: 1}"), "(valid: legend.position, "),
    ("style preset", lambda: load_style("mapwsie"), "(did you mean 'mapwise'?)",
     lambda: load_style("zzz"), "(valid: default, "),
    ("curated statistic", lambda: load_curated("usa", "populaton_2020"), "(did you mean 'population_2020'",
     lambda: load_curated("usa", "zzz"), "(valid: "),
    ("curated country", lambda: load_curated("usaa", "x"), "unknown country 'usaa' (did you mean 'usa'?)",
     lambda: load_curated("mars", "x"), "(valid: usa, "),
    ("colormap", lambda: resolve_colormap_name("Bluez"), "(did you mean 'Blues'",
     lambda: resolve_colormap_name("zzzzz"), "(valid: "),
]


@pytest.mark.parametrize(("site", "close", "says", "far", "lists"), SITES, ids=[s[0] for s in SITES])
def test_each_site_suggests_the_close_name_else_lists_the_valid_ones(site: str, close: Callable[[], object],
                                                                     says: str, far: Callable[[], object],
                                                                     lists: str) -> None:
    assert says in _message(close), site
    assert lists in _message(far) and "did you mean" not in _message(far), site


def test_template_checks_suggest_keys_and_values() -> None:
    from mapgen.questions.typecheck import check_param_values, unknown_keys

    assert unknown_keys({"form": 1}, {"from", "type", "values"}, "parameter 'X'") == [
        "parameter 'X' has unknown key 'form' (did you mean 'from'?)"]
    assert unknown_keys({"zzz": 1}, {"from", "type"}, "the file") == ["the file has unknown key 'zzz' (valid: from, type)"]
    assert check_param_values("E", "Extreme", ["biggest"]) == [
        "parameter 'E': 'biggest' is not one of the Extreme values (did you mean 'highest'?)"]


def test_template_record_fields_suggest(tmp_path: Path) -> None:
    from mapgen.questions import TemplateError, load_templates

    record = ("templates:\n  - id: t\n    answer_type: {a}\n    map_types: [discrete]\n    params: {{X: Region}}\n"
              "    text: ['What is {{{{ X }}}}?']\n    program:\n      - answer: value(X)\n")
    for answer, says in (("binery", "unknown answer_type 'binery' (did you mean 'binary'?)"),
                         ("zzz", "unknown answer_type 'zzz' (valid: binary, single, count")):
        (tmp_path / "t.yaml").write_text(record.format(a=answer), encoding="utf-8")
        with pytest.raises(TemplateError) as err:
            load_templates(tmp_path / "t.yaml", builtin=False)
        assert says in str(err.value)


def test_a_counterfactual_map_and_the_recheck_suggest_the_maps_names() -> None:
    from mapgen.counterfactual import make_counterfactual
    from mapgen.recheck.parse import ParseError, Resolver
    from mapgen.scene import build_scene
    from mapgen.spec import make_spec

    spec = make_spec("usa", "population_2020", classes=3)
    cf = build_scene(make_counterfactual(spec, "imaginary", 3))
    name = cf.name_of("CA")
    assert f"(did you mean {name!r}?)" in _message(lambda: cf.resolve(name[:-1] + "x" + name[-1]))
    with pytest.raises(ParseError, match=r"unknown region 'Texsa' \(did you mean 'Texas'\?\)"):
        Resolver(build_scene(spec)).region("Texsa")
    with pytest.raises(ParseError, match=r"unknown region 'Atlantis' \(valid: Alabama, "):
        Resolver(build_scene(spec)).region("Atlantis")


def test_a_table_lists_each_unknown_name_with_its_suggestion(tmp_path: Path) -> None:
    from mapgen.data.user_tables import TableError, load_table

    path = tmp_path / "t.csv"
    path.write_text("state,value\nKalifornia,1\nAtlantis,2\nTexas,3\n", encoding="utf-8")
    with pytest.raises(TableError) as err:
        load_table(path, "usa")
    assert "line 2 'Kalifornia' (did you mean 'California'?); line 3 'Atlantis' (valid: Alabama, " in str(err.value)
