"""Extraction on a corpus of messy, real-looking model outputs (one case per kind of mess)."""

from __future__ import annotations

import pytest

from mapgen.eval.answers import extract_answer

VOCAB = ["Jammu and Kashmir", "Dadra and Nagar Haveli and Daman and Diu", "Andaman and Nicobar Islands"]

# (id, answer type, model output, expected extracted value)
CORPUS: list[tuple[str, str, str, object]] = [
    (
        "cot-json-last-line",
        "binary",
        "Step 1: The legend has five classes from light to dark blue.\nStep 2: Texas is in the darkest class "
        "while Ohio is in the third.\nStep 3: Therefore Texas is higher.\n{\"answer\": \"Yes\"}",
        "Yes",
    ),
    (
        "cot-json-fenced",
        "count",
        "Let's count the dark red states along the coast: California, Oregon, Washington.\n\n```json\n"
        '{"answer": 3}\n```',
        3,
    ),
    (
        "two-json-objects-last-wins",
        "single",
        'My first guess: {"answer": "Ohio"}. On closer inspection Ohio is lighter, so: {"answer": "Indiana"}',
        "Indiana",
    ),
    (
        "json-with-reasoning-key",
        "list",
        '{"reasoning": "Kerala and Tamil Nadu are both in the 70-80 class.", "answer": ["Kerala", "Tamil Nadu"]}',
        ["Kerala", "Tamil Nadu"],
    ),
    (
        "python-dict-single-quotes",
        "list",
        "{'answer': ['Gansu', 'Qinghai', 'Xinjiang'],}",
        ["Gansu", "Qinghai", "Xinjiang"],
    ),
    (
        "markdown-bold-final-answer",
        "binary",
        "## Analysis\n\n- **Bihar**: dark green\n- **Kerala**: light green\n\n**Final Answer:** **No**",
        "No",
    ),
    (
        "markdown-bullets-after-answer",
        "list",
        "Looking at the north-east:\n\nAnswer:\n- Assam\n- Meghalaya\n- **Tripura**\n\nThese share the top class.",
        ["Assam", "Meghalaya", "Tripura"],
    ),
    ("numbered-list-with-notes", "list", "1. Texas (darkest)\n2. Oklahoma (dark)\n3. Kansas", ["Texas", "Oklahoma", "Kansas"]),
    (
        "list-with-and-and-oxford-comma",
        "list",
        "The states are Maine, Vermont, and New Hampshire.",
        ["Maine", "Vermont", "New Hampshire"],
    ),
    (
        "list-keeps-names-with-and",
        "list",
        "Final answer: Jammu and Kashmir, Punjab and Andaman and Nicobar Islands",
        ["Jammu and Kashmir", "Punjab", "Andaman and Nicobar Islands"],
    ),
    ("list-none-sentence", "list", "Final answer: None of the states fall in that range.", []),
    ("list-empty-json", "list", 'After checking every class, nothing qualifies. {"answer": []}', []),
    ("refusal-binary", "binary", "I'm sorry, but I can't determine that from the image provided.", None),
    ("refusal-count", "count", "I am unable to read the legend clearly enough to answer.", None),
    ("count-word", "count", "There are seven such provinces.", 7),
    ("count-answer-line-after-prose", "count", "Ohio, Iowa and Utah qualify; 2 others are close.\nAnswer: 3", 3),
    ("count-none-phrase", "count", "There are no states in the 5k-10k range.", 0),
    ("yes-leading", "binary", "Yes, Texas has a higher value than Ohio because its shade is darker.", "Yes"),
    (
        "yes-no-echo-then-answer",
        "binary",
        "Yes or no: is Kerala higher than Bihar? Kerala is light, Bihar is dark, so the answer is no.",
        "No",
    ),
    ("true-false-json", "binary", '```\n{"answer": false}\n```', "No"),
    (
        "single-the-answer-is",
        "single",
        "Comparing the neighbours of Nevada, the darkest one is California. The answer is California.",
        "California",
    ),
    ("single-state-of-prefix", "single", '{"answer": "The State of Uttar Pradesh"}', "The State of Uttar Pradesh"),
    ("ranking-gt-chain-with-ties", "ranking", "Final ranking: Texas > Ohio = Iowa > Utah", [["Texas"], ["Ohio", "Iowa"], ["Utah"]]),
    ("ranking-lt-chain", "ranking", "From lowest to highest: Guizhou < Yunnan < Sichuan", [["Sichuan"], ["Yunnan"], ["Guizhou"]]),
    (
        "ranking-rank-lines",
        "ranking",
        "Rank 1: California\nRank 2: Washington, Oregon\nRank 3: Nevada",
        [["California"], ["Washington", "Oregon"], ["Nevada"]],
    ),
    (
        "ranking-json-string",
        "ranking",
        'Thinking it through... {"answer": "Kerala > Goa = Punjab > Bihar"}',
        [["Kerala"], ["Goa", "Punjab"], ["Bihar"]],
    ),
    (
        "ranking-json-groups",
        "ranking",
        '{"answer": [["Hunan"], ["Hubei", "Henan"]]}',
        [["Hunan"], ["Hubei", "Henan"]],
    ),
    ("ranking-bare-json-array", "ranking", '[["Montana", "Oregon"], ["Wyoming"]]', [["Montana", "Oregon"], ["Wyoming"]]),
    ("range-with-units", "range", "Final answer: 1.5 million to 2 million people", (1.5e6, 2e6)),
    ("range-dollars-commas", "range", '{"answer": "$53,540 - $75,000"}', (53540.0, 75000.0)),
    ("range-open-above", "range", "It falls in the top class, which is above 0.55.", (0.55, None)),
    ("range-percent-en-dash", "range", "**Answer:** 10.2–13.6%", (10.2, 13.6)),
    ("range-plus-suffix", "range", '{"answer": "1500+"}', (1500.0, None)),
    ("range-lower-upper-dict", "range", '{"answer": {"lower": "2k", "upper": "4k"}}', (2000.0, 4000.0)),
    (
        "malformed-json-unclosed",
        "list",
        'Here is my answer: {"answer": ["Anhui", "Jiangsu"',
        ["Anhui", "Jiangsu"],
    ),
    ("garbage-braces", "single", "}{}{\"'", None),
    (
        "trailing-chatter-after-json",
        "count",
        '{"answer": 4}\n\nLet me know if you need a breakdown by region!',
        4,
    ),
]


def test_the_corpus_is_large_and_varied():
    texts = {text for _, _, text, _ in CORPUS}
    assert len(texts) == len(CORPUS) >= 30
    assert len({name for name, *_ in CORPUS}) == len(CORPUS)
    assert {t for _, t, _, _ in CORPUS} == {"binary", "count", "single", "list", "range", "ranking"}


@pytest.mark.parametrize(("answer_type", "text", "expected"), [c[1:] for c in CORPUS], ids=[c[0] for c in CORPUS])
def test_messy_output(answer_type: str, text: str, expected: object):
    got = extract_answer(text, answer_type, VOCAB)
    if expected is None:
        assert not got.ok and got.value is None and got.reason
    else:
        assert got.ok, got.reason
        assert got.value == expected
