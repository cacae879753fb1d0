"""Replies that deny or contradict their own answer, in English, Spanish, Chinese and Hindi.

"Definitely not Yes.", "not Texas", "no es Texas", "不是广东省", "उत्तर प्रदेश नहीं" name an answer only to deny it,
and "Yes and no." / "sí y no" / "是也不是" / "हाँ और नहीं" give both: :mod:`mapgen.eval.answers` counts such replies
as unparsed instead of reading the named answer. A denial that follows an answer ("Texas, not Ohio", "Ohio and
Iowa, but not Texas", "广东省，不是广西") only excludes something: :func:`drop_exclusions` removes it.
"""

from __future__ import annotations

import re

_ADVERBS = (r"(?:(?:a|an|the|definitely|exactly|quite|really|necessarily|simply|just|clearly|actually|even"
            r"|certainly|entirely|strictly|so|that)\s+)*")
_DENIED_BEFORE = re.compile(
    r"(?:\b(?:not|never|neither|nor)|n[’']t|\bno\s+(?:es|son|era|sería|fue|está|están)(?:\s+(?:el|la|los|las))?"
    r"|不是|并非|并不是|非|不|没有)\s*" + _ADVERBS + r"""["'“‘*_`(\[$\\]*\s*$""",
    re.IGNORECASE,
)
_NEGATION_WORD = re.compile(r"not|n[’']t|never|neither|nor|no\s|不|非|没有", re.IGNORECASE)  # a fast first check
_DENIED_AFTER = re.compile(r"""^["'”’*_`)\]]*\s*(?:नहीं|न)(?![\u0900-\u097f])""")
_DENIAL_START = re.compile(
    r"^\W*(?:(?:it\s+is|it[’']s|is|are|answer\s*:?)\s+)?(?:(?:not|never|no\s+(?:es|son))\b|不是|并非|并不是)",
    re.IGNORECASE,
)

_YES = r"(?:yes|s[íi]|是|हाँ|हां)"
_NO = r"(?:no|不是|否|नहीं)"
_BOTH = re.compile(
    rf"(?<!\w){_YES}(?!\w)[\s,]*(?:and|but|or|&|/|y|o|pero|也|又|和|और|भी\s+और)?\s*(?:also\s+|both\s+|भी\s+)?"
    rf"{_NO}(?![^\W\d_]|\s+[^\W\d_]{{2,}})"
    rf"|(?<![^\W\d_]){_NO}(?![^\W\d_])[\s,]*(?:and|but|or|&|/|y|o|pero|也|又|和|और)?\s*(?:also\s+)?{_YES}"
    rf"(?![^\W\d_]|\s+[^\W\d_]{{2,}})"
    r"|\bboth\s+yes\s+and\s+no\b|\bpartly\s+yes\b|既是也不是|是也不是|是又不是",
    re.IGNORECASE,
)
_DEFINITE_NO = re.compile(
    r"^\W*(?:(?:definitely|certainly|absolutely|of\s+course|surely)\s+not|not\s+at\s+all|no\s+way)\W*$",
    re.IGNORECASE,
)

_EXCLUSION = re.compile(
    r"(?<=\S)\s*(?:[,;—–(]|\s-)\s*(?:(?:but|and|y|pero)\s+|但是?|而)?(?:not|rather\s+than|instead\s+of|no|不是|而不是|而非)"
    r"(?=[\s\"'“‘*]|[\u4e00-\u9fff])[^.;\n。；)]*\)?"
)


_EXCLUSION_HINTS = ("not", "rather", "instead", "no ", "不是", "而非")


def denied_before(text: str, start: int) -> bool:
    """Whether the answer word at ``text[start:]`` is preceded by a negation (``not Yes``, ``no es Texas``,
    ``不是广东省``)."""
    window = text[max(0, start - 60) : start]
    return _NEGATION_WORD.search(window) is not None and _DENIED_BEFORE.search(window) is not None


def denied_after(text: str, end: int) -> bool:
    """Whether the answer word ending at ``end`` is negated after it (Hindi: ``उत्तर प्रदेश नहीं``)."""
    return _DENIED_AFTER.match(text[end : end + 12]) is not None


def is_denial(item: str) -> bool:
    """Whether an answer item only denies something (``not Texas``, ``It is not Texas``, ``不是广东省``)."""
    s = item.strip()
    if _DENIAL_START.match(s):
        return True
    end = s.rstrip(" ।.!")  # Hindi denies after the word: उत्तर प्रदेश नहीं
    return end == "नहीं" or end == "न" or end.endswith((" नहीं", " न"))


def contradicts(text: str) -> bool:
    """Whether ``text`` says both yes and no (``Yes and no.``, ``sí y no``, ``是也不是``, ``हाँ और नहीं``)."""
    return _BOTH.search(text) is not None


def definite_no(text: str) -> bool:
    """Whether the whole reply is a bare denial meaning No (``Definitely not.``, ``Not at all.``)."""
    return _DEFINITE_NO.match(text.strip()) is not None


def drop_exclusions(text: str) -> str:
    """``text`` without the denials that follow an answer: ``Texas, not Ohio`` → ``Texas``; ``Ohio and Iowa, but
    not Texas.`` → ``Ohio and Iowa.``; ``广东省，不是广西`` → ``广东省``."""
    lower = text.lower()
    if not any(word in lower for word in _EXCLUSION_HINTS):  # the common case, checked first
        return text
    return _EXCLUSION.sub("", text.replace("，", ", "))
