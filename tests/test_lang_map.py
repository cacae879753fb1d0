"""Maps drawn in the language of their questions (issue 21 item 2): titles, units and legend words as data
(``templates/lang/map/<lang>.yaml``), read back by the legend grammar; native callouts; English unchanged."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from mapgen.data.curated import list_stats
from mapgen.data.indicators import indicators
from mapgen.data.map_words import map_words
from mapgen.data.synthetic import synthesize
from mapgen.geo.languages import LANGUAGES, native_names
from mapgen.legend.grammar import NA_WORDS, find_range, parse_label, reword_range
from mapgen.resources import template_path

DEVANAGARI = re.compile(r"[\u0900-\u097F]")
HAN = re.compile(r"[\u4E00-\u9FFF]")
SPANISH = re.compile(r"[a-záéíóúñ]", re.IGNORECASE)
CASES = [("hi", "india", DEVANAGARI), ("zh", "china", HAN), ("es", "usa", SPANISH)]
CASE_IDS = [c[0] for c in CASES]
#: A label's ink: near-black pixels (text and halo), never a dark fill (#08306b) or a fill blended with a border.
INK_SUM = 120


# --- the words, as data -------------------------------------------------------------------------------------


def test_lint_names_what_a_language_lacks(monkeypatch):
    from mapgen.data import map_words as module

    words = module.map_words("zh")
    thin = module.MapWords(**{**vars(words), "indicators": {k: v for k, v in words.indicators.items()
                                                             if k != "Median age"},
                              "units": {k: v for k, v in words.units.items() if k != "km²"}, "na": ""})
    monkeypatch.setattr(module, "map_words", lambda language: thin)
    problems = module.lint_map_words("zh")
    assert "no title for the indicator 'Median age'" in problems
    assert "no translation of the unit 'km²'" in problems and "no N/A key (legend.na)" in problems


def test_templates_lint_checks_the_map_words():
    from click.testing import CliRunner

    from mapgen.cli import main

    result = CliRunner().invoke(main, ["templates", "lint"])
    assert result.exit_code == 0, result.output
    assert all(f"templates/lang/map/{lang}.yaml: ok" in result.output for lang in ("hi", "zh", "es"))


def test_every_language_but_english_has_map_words():
    shipped = {f.name[: -len(".yaml")] for f in template_path("lang", "map").iterdir() if f.name.endswith(".yaml")}
    assert shipped == set(LANGUAGES) - {"en"}


@pytest.mark.parametrize("language", CASE_IDS)
def test_every_title_unit_and_legend_word_has_the_language(language):
    """Every indicator that titles a synthetic table of the language's country, every curated table of that
    country and every unit they use has a translation; so every map of such a build prints no English word."""
    from mapgen.data.map_words import lint_map_words

    words, country = map_words(language), native_names(language).country
    assert lint_map_words(language) == []
    for info in list_stats(country):
        assert words.display_title(info) != info.display_title


@pytest.mark.parametrize("language", CASE_IDS)
def test_the_legend_grammar_reads_each_languages_legend_words(language):
    from mapgen.tasks.extraction.parse import read_cell

    words = map_words(language)
    assert words.na.lower() in NA_WORDS and parse_label(words.na) == (None, None) and read_cell(words.na).na
    label = reword_range("-4.5 to 3.2", words.range_format)
    assert label != "-4.5 to 3.2" and "4.5" in label and "3.2" in label  # the numbers stay Arabic digits
    assert parse_label(label) == (-4.5, 3.2)
    for reply in (label, f"Answer: {label}", f"答案是{label}", f"उत्तर: {label}"):
        assert find_range(reply) == (-4.5, 3.2), reply
    assert reword_range("10-20", words.range_format) == "10-20"  # labels without a word are symbols already


@cache
def _cmap(path: str, index: int) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    return frozenset(TTFont(path, fontNumber=index, lazy=True).getBestCmap())


def _missing_glyphs(text: str) -> set[str]:
    """Characters of ``text`` the font mapgen sets it in has no glyph for."""
    from mapgen.render.text import FONT_FILE, SCRIPT_FONTS, script_of

    script = script_of(text)
    path, index = (str(FONT_FILE), 0) if script == "latin" else SCRIPT_FONTS[script][1:3]
    if not Path(path).is_file():
        pytest.skip(f"font {path} is not installed (apt-get install {SCRIPT_FONTS[script][3]})")
    return {ch for ch in text if ord(ch) not in _cmap(path, index)}


@pytest.mark.parametrize("language", CASE_IDS)
def test_every_printed_word_has_a_glyph_in_its_font(language):
    """Noto Sans Devanagari has no Latin letters, ° or ²: a Hindi title with "CO2" or "km²" would print boxes."""
    words, country = map_words(language), native_names(language).country
    texts = [words.na, reword_range("-4 to 4", words.range_format), *words.units.values()]
    texts += [words.display_title(s) for s in list_stats(country)]
    texts += [words.display_title(synthesize(country, seed=0, title=i.title, unit=i.unit).info)
              for i in indicators(country)]
    bad = {t: _missing_glyphs(t) for t in texts if _missing_glyphs(t)}
    assert bad == {}


# --- specs: words change, numbers do not --------------------------------------------------------------------


def _signed_stat(country: str):
    """A table with negative values (labels such as "-8.0 to -1.4") and three N/A regions."""
    return synthesize(country, seed=7, distribution="normal", kind="absolute", low=-8, high=12, n_missing=3)


@pytest.mark.parametrize(("language", "country", "script"), CASES, ids=CASE_IDS)
def test_a_localised_map_prints_native_words_and_the_same_numbers(language, country, script):
    from mapgen.spec import localised, make_hatched, make_spec

    stat, words = _signed_stat(country), map_words(language)
    english = make_spec(country, stat, classes=5)
    native = make_spec(country, stat, classes=5, language=language, label_mode="names")
    assert english.title == stat.info.display_title and english.legend.na_label == "N/A"  # English unchanged
    assert native.title == words.display_title(stat.info) and script.search(native.title)
    assert native.title != english.title
    assert any(" to " in c.label for c in english.legend.classes)  # the table has a worded range to translate
    for e, n in zip(english.legend.classes, native.legend.classes, strict=True):
        assert parse_label(n.label) == parse_label(e.label) and (n.color, n.lower, n.upper) == (e.color, e.lower, e.upper)
        assert " to " not in n.label
    assert native.legend.na_label == words.na
    assert localised(native) == native  # applying it twice changes nothing
    hatched = make_hatched(native)
    assert [c.label for c in hatched.legend.classes] == [c.label for c in native.legend.classes]
    assert hatched.legend.na_label == words.na and hatched.title == native.title


@pytest.mark.parametrize(("language", "country", "script"), CASES, ids=CASE_IDS)
def test_continuous_intervals_in_questions_use_the_maps_range_word(language, country, script):
    from mapgen.questions.functions import reading
    from mapgen.scene import build_scene
    from mapgen.spec import make_spec

    stat = _signed_stat(country)
    english = reading(build_scene(make_spec(country, stat, legend="continuous")))
    native = reading(build_scene(make_spec(country, stat, legend="continuous", language=language)))
    assert any(" to " in label for label in english.interval_labels)
    assert [parse_label(n) for n in native.interval_labels] == [parse_label(e) for e in english.interval_labels]
    assert not any(" to " in label for label in native.interval_labels)


@pytest.mark.parametrize(("language", "country", "script"), CASES, ids=CASE_IDS)
def test_the_rendered_legend_is_the_localised_legend(language, country, script, tmp_path):
    from mapgen.audit.legibility import check_record
    from mapgen.render import render
    from mapgen.spec import make_spec

    spec = make_spec(country, _signed_stat(country), classes=5, language=language, label_mode="names")
    first = render(spec, tmp_path / "a.png")
    record = json.loads(first.json.read_text(encoding="utf-8"))
    printed = [item["label"] for item in record["legend_items"]]
    assert printed == [*(c.label for c in spec.legend.display_classes()), map_words(language).na]
    assert [line["text"] for line in record["title"]] == [spec.title]
    assert check_record(record).flags == []  # nothing overlaps, nothing is cut, every label is tall enough
    second = render(spec, tmp_path / "b.png")
    assert first.image.read_bytes() == second.image.read_bytes()  # deterministic


# --- labels -------------------------------------------------------------------------------------------------


def test_chinese_callouts_carry_short_names_in_a_box_planned_for_them():
    """A Chinese names page plans its label boxes for the one-glyph short names (taller than a code), so every
    callout shows its 简称 at the label size; an English page keeps the box of ``WW``."""
    pytest.importorskip("PIL")
    _missing_glyphs("京")
    from mapgen.geo.atlas import load_atlas
    from mapgen.render.api import get_canvas
    from mapgen.render.labels import label_texts
    from mapgen.render.text import font_for
    from mapgen.spec import Style, make_spec

    atlas, names = load_atlas("china"), native_names("zh")
    spec = make_spec(atlas, "population_2020", language="zh", label_mode="names")
    canvas, plain = get_canvas(atlas, spec.style), get_canvas(atlas, Style())
    assert canvas is not plain and plain.ink.bottom - plain.ink.top < canvas.ink.bottom - canvas.ink.top
    texts = label_texts(spec, canvas)
    callouts = [c for c, p in canvas.places.items() if p.kind == "callout"]
    assert len(callouts) >= 8
    for code in callouts:
        assert texts[code] == names.label(code), code
        left, top, right, bottom = font_for(texts[code], canvas.label_px).getbbox(texts[code], anchor="mm")
        ink = canvas.ink
        assert ink.left <= left and ink.top <= top and right <= ink.right and bottom <= ink.bottom


def test_devanagari_is_set_as_tall_as_latin_capitals():
    """Devanagari's body (headline to baseline) is shorter than a Latin capital at one font size: its labels are
    set a size larger, so every Hindi region name is at least the audit's 12 px label height at 800×600."""
    _missing_glyphs("क")
    from mapgen.audit.legibility import MIN_LABEL_PX
    from mapgen.geo.atlas import load_atlas
    from mapgen.render.api import get_canvas
    from mapgen.render.text import font, font_for, script_size
    from mapgen.spec import Style

    canvas = get_canvas(load_atlas("india"), Style())
    size = canvas.label_px
    assert script_size(round(size), "devanagari") > size and script_size(round(size), "han") == size
    _, top, _, bottom = font(size).getbbox("H")
    names = native_names("hi")
    heights = {names.name(c): font_for(names.name(c), size).getbbox(names.name(c)) for c in canvas.codes}
    short = {n: b[3] - b[1] for n, b in heights.items() if b[3] - b[1] < max(MIN_LABEL_PX, bottom - top)}
    assert short == {}


# --- a real tiny Hindi and Chinese build --------------------------------------------------------------------


@pytest.fixture(scope="module", params=[("india", "hi", DEVANAGARI), ("china", "zh", HAN)], ids=["hi", "zh"])
def native_build(request, tmp_path_factory):
    from mapgen.build import build

    country, language, script = request.param
    config = {"name": f"langmap-{language}", "seed": 5, "tasks": ["vqa"],
              "countries": [{"name": country, "maps": 3, "language": language, "labels": "names",
                             "statistics": {"curated": [list_stats(country)[0].id],
                                            "synthetic": {"count": 2, "distributions": ["normal"]}}}],
              "questions": {"per_image": 60, "min_per_template": 0}}
    out = tmp_path_factory.mktemp(f"langmap-{language}") / "bench"
    build(config, out, progress=False)
    return out, language, script


def _printed_numbers(record: dict) -> set[float]:
    """Every number the legend of a rendered map prints (class bounds, ticks)."""
    out: set[float] = set()
    for item in record["legend_items"]:
        if "label" in item:
            out |= {b for b in parse_label(item["label"]) if b is not None}
    return out


def test_every_range_answer_is_what_the_map_prints(native_build):
    folder, language, script = native_build
    questions = [json.loads(line) for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    ranges = [q for q in questions if q["answer_type"] == "range"]
    assert len(ranges) >= 5
    for q in ranges:
        record = json.loads((folder / "maps" / f"{q['map_id']}.json").read_text(encoding="utf-8"))
        labels = [item["label"] for item in record["legend_items"] if "label" in item]
        if q["answer"] in labels:
            continue
        lo, hi = find_range(q["answer"])  # a span of two printed bounds or ticks ("680k - 126M")
        printed = _printed_numbers(record)
        assert any(abs(lo - p) <= 1e-9 * max(1, abs(p)) for p in printed), q["answer"]
        assert any(abs(hi - p) <= 1e-9 * max(1, abs(p)) for p in printed), q["answer"]


def test_every_map_of_the_build_is_titled_in_the_language_and_passes_the_legibility_audit(native_build):
    from mapgen.audit.legibility import check_record

    folder, language, script = native_build
    words = map_words(language)
    maps = [json.loads(line) for line in (folder / "maps.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {m["statistic"].startswith("synthetic") for m in maps} == {True, False}
    for m in maps:
        record = json.loads((folder / "maps" / f"{m['map_id']}.json").read_text(encoding="utf-8"))
        assert script.search(m["title"]) and not re.search(r"[A-Za-z]{3,}", m["title"]), m["title"]
        assert check_record(record).flags == [], m["map_id"]
        spec = record["spec"]
        assert spec["legend"]["na_label"] in (None, words.na)


# --- the plotly renderer (Chromium) -------------------------------------------------------------------------


def _ink_sizes(result) -> dict[str, tuple[int, int]]:
    """Width and height of the dark pixels (glyphs, or the dark halo of white text) around each native inside
    label of a rendered map."""
    import numpy as np
    from PIL import Image

    record = json.loads(result.json.read_text(encoding="utf-8"))
    image = np.asarray(Image.open(result.image).convert("RGB")).astype(int)
    out = {}
    for label in record["labels"].values():
        if label["kind"] != "inside" or label["text"].isascii():
            continue
        x1, y1, x2, y2 = (int(round(v)) for v in label["box"])
        ys, xs = np.nonzero(image[y1 - 3 : y2 + 4, x1 - 6 : x2 + 7].sum(axis=2) < INK_SUM)
        out[label["text"]] = (int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1))
    return out


@pytest.mark.parametrize(("language", "country", "script"), CASES[:2], ids=CASE_IDS[:2])
def test_plotly_sets_native_labels_as_the_matplotlib_renderer_does(language, country, script, tmp_path):
    """Chromium shapes Devanagari and CJK itself (HarfBuzz); asked for the font and size PIL measured
    (text.css_font), it draws each native label as wide and tall as the matplotlib renderer, within 2 px."""
    pytest.importorskip("plotly")
    pytest.importorskip("kaleido")
    from mapgen.render import render
    from mapgen.render.plotly_renderer import ChromiumNotFoundError, find_browser
    from mapgen.spec import make_spec

    try:
        find_browser()
    except ChromiumNotFoundError:
        pytest.skip("Chromium not installed (apt-get install chromium)")
    from mapgen.render.style import load_style
    from mapgen.resources import template_path

    spec = make_spec(country, _signed_stat(country), classes=5, language=language, label_mode="names",
                     width=1000, height=1000)  # plotly's framed map is smaller: a page where names fit
    # matplotlib draws plotly's own look from its file, so both pages plan the same labels
    look = load_style(str(template_path("styles", "renderers", "plotly.yaml"))).spec_defaults(country)
    mpl = _ink_sizes(render(spec.with_style(**look), tmp_path / "mpl.png"))
    plotly = _ink_sizes(render(spec.with_style(renderer="plotly"), tmp_path / "plotly.png"))
    assert set(plotly) == set(mpl) and len(mpl) >= 4 and any(script.search(t) for t in mpl)
    far = {t: (mpl[t], plotly[t]) for t in mpl if max(abs(a - b) for a, b in zip(mpl[t], plotly[t])) > 2}
    assert far == {}
