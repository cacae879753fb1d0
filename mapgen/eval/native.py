"""Answers written in Hindi, Chinese or Spanish (questions asked in the language of the map).

Models asked in another language answer in it, in English or in a mix ("उत्तर: Uttar Pradesh", "答案是广东省",
"Respuesta: sí"). This module gives :mod:`mapgen.eval.answers` what it needs for that: the answer-line markers
of each language, yes/no words, and counts written with CJK measure words ("3个") or number words. Names need
nothing here: accepted answers carry native and English spellings, and :func:`normalize.normalize_answer_name`
keeps the vowel signs of Indic scripts.
"""

from __future__ import annotations

import re

#: "Answer:" in each language. Hindi needs a colon or "है" (उत्तर alone also means "north", as in उत्तर प्रदेश).
_NATIVE_ANSWER_LINE = re.compile(
    r"(?:अंतिम[ \t]+)?उत्तर[ \t]*(?:है[ \t]*)?[:：—-][ \t]*(?P<hi>[^\n]*)"
    r"|(?:最终)?答案[ \t]*(?:是|为|：|:)[ \t]*[:：]?[ \t]*(?P<zh>[^\n]*)"
    r"|\b(?:la[ \t]+)?respuesta(?:[ \t]+final)?[ \t]*(?:es[ \t]*:?|:)[ \t]*(?P<es>[^\n]*)",
    re.IGNORECASE,
)
YES_WORDS = ("हाँ", "हां", "जी हाँ", "जी हां", "是", "是的", "对", "正确", "sí", "si", "cierto", "verdadero")
NO_WORDS = ("नहीं", "जी नहीं", "ना", "否", "不是", "不", "不对", "不正确", "错误", "no", "falso")
#: Whole-text yes/no: longest first, so 不是 wins over 是 and जी नहीं over नहीं.
_NATIVE_YES_NO = re.compile(r"(不是|(?:不对|不正确|对|正确|错误)(?=[\s，,。.！!；;]|$)|是的|जी\s+हाँ|जी\s+हां|जी\s+नहीं|हाँ|हां|नहीं|否|是|(?<!\w)sí(?!\w))",
                            re.IGNORECASE)
_ECHO = re.compile(r"是或否|是否|हाँ\s+या\s+नहीं|sí\s+o\s+no", re.IGNORECASE)
_CJK_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_NUMBER_WORDS = {
    "शून्य": 0, "एक": 1, "दो": 2, "तीन": 3, "चार": 4, "पाँच": 5, "पांच": 5, "छह": 6, "छः": 6, "सात": 7, "आठ": 8,
    "नौ": 9, "दस": 10, "कोई नहीं": 0, "cero": 0, "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4,
    "cinco": 5, "seis": 6, "siete": 7, "ocho": 8, "nueve": 9, "diez": 10, "ninguno": 0, "ninguna": 0,
    "没有": 0, "无": 0, "一个也没有": 0, "कोई भी नहीं": 0,
}  # fmt: skip
#: An empty list in each language (the ``none`` words of templates/lang/*.yaml, which a test checks are here).
NONE_WORDS = ("कोई नहीं", "कोई भी नहीं", "无", "没有", "一个也没有", "都没有", "ninguno", "ninguna", "nada")
_OPEN_RANGES = (
    (re.compile(r"(?:más\s+de|mayor\s+(?:que|de)|por\s+encima\s+de|superior\s+a|大于|高于|超过|多于)\s*"
                r"(?P<n>[-+]?[$€£₹¥]?\d[\d.,]*\s*%?)", re.IGNORECASE), ">"),
    (re.compile(r"(?:menos\s+de|menor\s+(?:que|de)|por\s+debajo\s+de|inferior\s+a|小于|低于|少于)\s*"
                r"(?P<n>[-+]?[$€£₹¥]?\d[\d.,]*\s*%?)", re.IGNORECASE), "<"),
    (re.compile(r"(?P<n>[-+]?[$€£₹¥]?\d[\d.,]*\s*%?)\s*(?:以上|से\s+(?:अधिक|ज़्यादा|ज्यादा|ऊपर)|o\s+más)"), ">"),
    (re.compile(r"(?P<n>[-+]?[$€£₹¥]?\d[\d.,]*\s*%?)\s*(?:以下|से\s+(?:कम|नीचे)|o\s+menos)"), "<"),
)  # fmt: skip

_COUNT = re.compile(
    r"(?P<num>\d+)(?=\s*[个個项項]|\s*$|\s*[。.，,])"
    r"|(?P<cjk>[零〇一二两三四五六七八九十]{1,3})(?=\s*[个個项項])"
    r"|(?<!\w)(?P<word>" + "|".join(sorted(map(re.escape, _NUMBER_WORDS), key=len, reverse=True)) + r")(?!\w)",
    re.IGNORECASE,
)


_SPANISH_OPEN = re.compile(r"mayor|menor|menos|encima|debajo|superior|inferior|o\s+m", re.IGNORECASE)


def native_open_range(text: str) -> str:
    """Open ranges worded in Hindi, Chinese or Spanish in the ``>50`` / ``<5`` notation (``50 से अधिक``, ``大于50``,
    ``más de 50``); other text unchanged."""
    if text.isascii() and not _SPANISH_OPEN.search(text):  # the common case: nothing to rewrite
        return text
    for pattern, form in _OPEN_RANGES:
        text = pattern.sub(form + r"\g<n>", text)
    return text


def find_native_answer_line(text: str) -> str | None:
    """The text after the last Hindi, Chinese or Spanish "answer:" marker (``None`` when there is none)."""
    matches = list(_NATIVE_ANSWER_LINE.finditer(text))
    if not matches:
        return None
    m = matches[-1]
    raw = next(g for g in (m.group("hi"), m.group("zh"), m.group("es")) if g is not None)
    raw = re.sub(r"\*\*|__|`", "", raw).strip().rstrip("。．.!！")
    return raw or lines_after(text, m.end()) or None


def lines_after(text: str, pos: int) -> str:
    """The lines after ``pos`` up to the first blank line (an answer given as bullets under its marker)."""
    lines = []
    for line in text[pos:].lstrip("\n").splitlines():
        if not line.strip():
            break
        lines.append(line)
    return "\n".join(lines)


def native_yes_no(text: str) -> str | None:
    """``"Yes"``/``"No"`` from the last Hindi/Chinese/Spanish yes/no word (the first when the text opens with
    it); an echoed "是或否" / "हाँ या नहीं" is not an answer."""
    masked = _ECHO.sub(lambda m: " " * len(m.group(0)), text)
    matches = list(_NATIVE_YES_NO.finditer(masked))
    if not matches:
        return None
    lead = len(masked) - len(masked.lstrip(" \t\n*:：-"))
    word = (matches[0] if matches[0].start() == lead else matches[-1]).group(1)
    return "No" if re.sub(r"\s+", " ", word.lower()) in {w.lower() for w in NO_WORDS} else "Yes"


def _cjk_number(text: str) -> int:
    if "十" not in text:
        return int("".join(str(_CJK_DIGITS[c]) for c in text))
    tens, _, ones = text.partition("十")
    return (_CJK_DIGITS.get(tens, 1) if tens else 1) * 10 + (_CJK_DIGITS.get(ones, 0) if ones else 0)


def native_count(text: str) -> int | None:
    """A count written "3个", "三个", "तीन" or "tres" (the first when the text opens with it, else the last)."""
    matches = list(_COUNT.finditer(text))
    if not matches:
        return None
    m = matches[0] if matches[0].start() == len(text) - len(text.lstrip()) else matches[-1]
    if m.group("num") is not None:
        return int(m.group("num"))
    if m.group("cjk") is not None:
        return _cjk_number(m.group("cjk"))
    return _NUMBER_WORDS[m.group("word").lower()]
