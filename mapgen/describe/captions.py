"""Detailed and short captions (VRSBench caption task on maps), every fact computed from the Scene.

Sentence order (3–7 sentences): overview (country, title, region word) → legend (type, number of classes,
range, palette, darkness direction) → counts per class (highest first; continuous: how many have data) →
extremes (members of the highest and lowest class by display name; continuous: the clearly highest and lowest
region) → spatial pattern (where the top regions lie) → group concentration (the named group most dominated by
the top class) → N/A regions. Each sentence carries a machine-checkable ``claim`` (tests re-check them).

Rules:

- *Top* regions: members of the highest class (discrete) or regions in the top third of the colour bar
  (continuous, ``position_of >= 2/3``). The pattern sentences need 2 to 70% of the regions with data.
- Spatial pattern: with at least :data:`MIN_PATTERN` top regions, the top regions lie "mostly in the east" when
  at least :data:`SIDE_SHARE` of them have an atlas position (the atlas direction rule) strictly east of the
  median position of all regions with data; likewise west/north/south, combined as "north-east"; otherwise they
  are "spread across the country". Positions are geographic, so insets (Alaska, Hawaii) count where they are.
- Group concentration: among named groups with at least :data:`MIN_GROUP` members with data, the one with the
  largest share of top regions (then most top members, then name); stated only when the share is at least 1/2
  and at least 2 members are top.
- Names: only legible regions are named; lists show at most :data:`MAX_NAMES` (largest on the image first) and
  then "and N other <regions>" (N counts every other member, legible or not). Counts cover every region.
- Wordings: ``templates/describe/captions.yaml``, chosen by a RNG seeded with ``(seed, map_id)``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from mapgen.describe.attributes import colour_name, hue_family
from mapgen.describe.wording import group_members_phrase, join_names, load_wordings, pick, render_text
from mapgen.scene import Scene

SIDE_SHARE = 0.75
MIN_PATTERN = 3
MIN_GROUP = 3
MAX_NAMES = 4
TOP_SHARE_MAX = 0.7
VALUE_MARGIN = 0.05
CONTINUOUS_TOP = 2 / 3
ACHROMATIC = frozenset({"white", "grey", "black"})


# ------------------------------------------------------------------------------------------ facts


def top_regions(scene: Scene, high: bool = True) -> list[str]:
    """Codes of the top (or bottom) regions: highest/lowest class, or top/bottom third of the colour bar."""
    valued = scene.valued()
    if scene.map_type == "discrete":
        target = scene.legend.k - 1 if high else 0
        return [c for c in valued if scene.regions[c].class_index == target]
    pos = {c: scene.legend.bar_position(scene.regions[c].value) for c in valued}
    if high:
        return [c for c in valued if pos[c] >= CONTINUOUS_TOP]
    return [c for c in valued if pos[c] <= 1 - CONTINUOUS_TOP]


def class_counts(scene: Scene) -> list[dict[str, Any]]:
    """Per class (highest first) ``{index, label, count}``; N/A last when present."""
    out = []
    for cls in reversed(scene.legend.classes):
        count = sum(1 for r in scene.regions.values() if r.class_index == cls.index)
        out.append({"index": cls.index, "label": cls.label, "count": count})
    na = sum(1 for r in scene.regions.values() if r.missing)
    if na:
        out.append({"index": None, "label": scene.legend.na_label or "N/A", "count": na})
    return out


def shift_direction(scene: Scene, codes: Sequence[str]) -> str | None:
    """"north-east" etc. when most ``codes`` lie on one side of the map's median position, else None (spread)."""
    valued = scene.valued()
    if len(codes) < MIN_PATTERN:
        return None
    mid_lon = float(np.median([scene.regions[c].lon for c in valued]))
    mid_lat = float(np.median([scene.regions[c].lat for c in valued]))
    east = sum(scene.regions[c].lon > mid_lon for c in codes) / len(codes)
    west = sum(scene.regions[c].lon < mid_lon for c in codes) / len(codes)
    north = sum(scene.regions[c].lat > mid_lat for c in codes) / len(codes)
    south = sum(scene.regions[c].lat < mid_lat for c in codes) / len(codes)
    ns = "north" if north >= SIDE_SHARE else "south" if south >= SIDE_SHARE else ""
    ew = "east" if east >= SIDE_SHARE else "west" if west >= SIDE_SHARE else ""
    return "-".join(p for p in (ns, ew) if p) or None


def group_concentration(scene: Scene, codes: Sequence[str]) -> dict[str, Any] | None:
    """The named group most dominated by ``codes`` (see module rules), or None."""
    top = set(codes)
    best: tuple | None = None
    for name in scene.groups:
        members = scene.valued(sorted(scene.group(name)))
        if len(members) < MIN_GROUP:
            continue
        count = sum(1 for c in members if c in top)
        share = count / len(members)
        if share < 0.5 or count < 2:
            continue
        key = (-share, -count, name)
        if best is None or key < best[0]:
            best = (key, {"group": name, "count": count, "size": len(members), "share": share})
    return best[1] if best else None


def _area(scene: Scene, code: str) -> int:
    px = scene.regions[code].pixels
    return int(px["area_px"]) if px else 0


def name_list(scene: Scene, codes: Sequence[str]) -> tuple[str, list[str]]:
    """A phrase naming legible regions of ``codes`` (largest on the image first) and the codes it names."""
    legible = sorted(scene.legible(codes), key=lambda c: (-_area(scene, c), scene.regions[c].name))
    shown = legible[:MAX_NAMES]
    names = [scene.regions[c].name for c in shown]
    rest = len(codes) - len(shown)
    if rest:
        names.append(f"{rest} other {scene.region_word if rest == 1 else scene.region_words}")
    return join_names(names), shown


# ------------------------------------------------------------------------------------------ sentences


def _base(scene: Scene) -> dict[str, Any]:
    return {"country": country_name(scene), "title": scene.title, "word": scene.region_word,
            "words": scene.region_words, "n": len(scene.regions)}


def country_name(scene: Scene) -> str:
    """The country as a caption says it (``country_names`` in captions.yaml, else the atlas title)."""
    return load_wordings("captions").get("country_names", {}).get(scene.country, scene.country_title)


def _palette(scene: Scene) -> str:
    if scene.hatched:
        return "black-and-white hatch patterns"
    colors = [c.color for c in scene.legend.classes] if scene.map_type == "discrete" else list(scene.legend.colors)
    families = {hue_family(c) for c in colors} - ACHROMATIC
    if len(families) == 1:
        return f"shades of {families.pop()}"
    return f"colours from {colour_name(colors[0])} to {colour_name(colors[-1])}"


def _overview(scene: Scene, ctx: dict, rng: random.Random) -> dict[str, Any]:
    text = render_text(pick(rng, load_wordings("captions")["overview"]), **ctx)
    return {"kind": "overview", "text": text, "claim": {"country": ctx["country"], "title": scene.title}}


def _legend(scene: Scene, ctx: dict, rng: random.Random) -> dict[str, Any]:
    w = load_wordings("captions")
    darker = scene.legend_facts.darkness_increases_with_value
    direction = "" if scene.hatched else w["direction"]["darker_higher" if darker else "lighter_higher"]
    if scene.map_type == "discrete":
        labels = scene.legend_facts.labels
        text = render_text(
            pick(rng, w["legend_discrete"]), k=scene.legend.k, low=labels[0], high=labels[-1],
            palette=_palette(scene), direction=direction, **ctx,
        )
        claim = {"legend": "discrete", "num_classes": scene.legend.k, "darker_higher": darker}
    else:
        ticks = scene.legend.tick_labels
        text = render_text(
            pick(rng, w["legend_continuous"]), low=ticks[0], high=ticks[-1], palette=_palette(scene),
            direction=direction, **ctx,
        )
        claim = {"legend": "continuous", "num_classes": 0, "darker_higher": darker}
    return {"kind": "legend", "text": text, "claim": claim}


def _counts(scene: Scene, ctx: dict, rng: random.Random) -> dict[str, Any]:
    w = load_wordings("captions")
    if scene.map_type != "discrete":
        valued = len(scene.valued())
        text = render_text(pick(rng, w["counts_continuous"]), valued=valued, **ctx)
        return {"kind": "counts", "text": text, "claim": {"valued": valued, "total": len(scene.regions)}}
    counts = class_counts(scene)
    items = []
    for i, item in enumerate(counts):
        c_words = ctx["word"] if item["count"] == 1 else ctx["words"]
        tpl = w["count_first"] if i == 0 else w["count_next"]
        items.append(render_text(tpl, c=item["count"], c_words=c_words, label=item["label"]))
    text = render_text(pick(rng, w["counts"]), items=join_names(items), **ctx)
    return {"kind": "counts", "text": text, "claim": {"counts": {str(c["index"]): c["count"] for c in counts}}}


def _extremes(scene: Scene, ctx: dict, rng: random.Random) -> dict[str, Any] | None:
    w = load_wordings("captions")
    if scene.map_type == "discrete":
        top, low = top_regions(scene), top_regions(scene, high=False)
        if not scene.legible(top) or not scene.legible(low):
            return None
        top_names, top_shown = name_list(scene, top)
        low_names, low_shown = name_list(scene, low)
        labels = scene.legend_facts.labels
        text = render_text(
            pick(rng, w["extremes"]), top_names=top_names, low_names=low_names, top_label=labels[-1],
            low_label=labels[0], top_count=len(top), low_count=len(low), **ctx,
        )
        claim = {"highest_class": scene.legend.k - 1, "top": top_shown, "lowest_class": 0, "low": low_shown}
        return {"kind": "extremes", "text": text, "claim": claim}
    highest, lowest = _clear_extreme(scene, True), _clear_extreme(scene, False)
    if not highest:
        return None
    darker = scene.legend_facts.darkness_increases_with_value
    text = render_text(
        pick(rng, w["extremes_continuous" if lowest else "extremes_continuous_high"]),
        high_name=scene.regions[highest].name, low_name=scene.regions[lowest].name if lowest else "",
        high_shade="darkest" if darker else "lightest", low_shade="lightest" if darker else "darkest", **ctx,
    )
    return {"kind": "extremes", "text": text, "claim": {"highest": highest, "lowest": lowest}}


def _clear_extreme(scene: Scene, high: bool) -> str | None:
    """The legible region with the highest (lowest) value, when it beats the runner-up by the margin."""
    valued = scene.valued()
    if len(valued) < 2:
        return None
    ranked = sorted(valued, key=lambda c: scene.regions[c].value, reverse=high)
    span = scene.legend_facts.vmax - scene.legend_facts.vmin
    gap = abs(scene.regions[ranked[0]].value - scene.regions[ranked[1]].value)
    if gap < VALUE_MARGIN * span or not scene.regions[ranked[0]].legible:
        return None
    return ranked[0]


def _top_phrase(scene: Scene) -> str:
    if scene.map_type == "discrete":
        return "highest-class"
    return "darkest-shaded" if scene.legend_facts.darkness_increases_with_value else "lightest-shaded"


def _patterns(scene: Scene, ctx: dict, rng: random.Random) -> list[dict[str, Any]]:
    w = load_wordings("captions")
    top = top_regions(scene)
    valued = scene.valued()
    if len(top) < 2 or len(top) > TOP_SHARE_MAX * len(valued):
        return []
    out = []
    where = shift_direction(scene, top)
    phrase = _top_phrase(scene)
    if where:
        text = render_text(pick(rng, w["spatial"]), top_phrase=phrase, where=f"{where} of the country", **ctx)
    else:
        text = render_text(pick(rng, w["spatial_spread"]), top_phrase=phrase, **ctx)
    out.append({"kind": "spatial", "text": text, "claim": {"top": sorted(top), "direction": where}})
    conc = group_concentration(scene, top)
    if conc:
        key = "group" if scene.map_type == "discrete" else "group_continuous"
        level = "highest" if scene.map_type == "discrete" else phrase.split("-")[0]
        text = render_text(
            pick(rng, w[key]), count=conc["count"], size=conc["size"], share=conc["share"],
            members=group_members_phrase(scene, conc["group"]), level=level, **ctx,
        )
        out.append({"kind": "group", "text": text, "claim": conc | {"top": sorted(top)}})
    return out


def _na(scene: Scene, ctx: dict, rng: random.Random) -> dict[str, Any] | None:
    missing = [c for c, r in scene.regions.items() if r.missing]
    if not missing:
        return None
    if scene.legible(missing):
        names, _ = name_list(scene, missing)
    else:
        names = f"{len(missing)} {ctx['word'] if len(missing) == 1 else ctx['words']}"
    text = render_text(pick(rng, load_wordings("captions")["na"]), names=names, count=len(missing), **ctx)
    return {"kind": "na", "text": text, "claim": {"missing": sorted(missing)}}


def caption_sentences(scene: Scene, seed: int = 0) -> list[dict[str, Any]]:
    """The detailed caption's sentences, each ``{kind, text, claim}``."""
    rng = random.Random(f"{seed}:{scene.map_id}:caption")
    ctx = _base(scene)
    parts: list[dict[str, Any] | None] = [
        _overview(scene, ctx, rng),
        _legend(scene, ctx, rng),
        _counts(scene, ctx, rng),
        _extremes(scene, ctx, rng),
        *_patterns(scene, ctx, rng),
        _na(scene, ctx, rng),
    ]
    return [p for p in parts if p][:7]


def short_caption(scene: Scene, seed: int = 0) -> str:
    """One sentence: country, title, legend type/classes, where the highest values are."""
    rng = random.Random(f"{seed}:{scene.map_id}:short")
    ctx = _base(scene)
    top = top_regions(scene)
    if scene.map_type != "discrete":
        best = _clear_extreme(scene, True)
        top = [best] if best else top
    names = [scene.regions[c].name for c in sorted(scene.legible(top), key=lambda c: -_area(scene, c))[:3]]
    where = join_names(names) if names else "no single region"
    k = scene.legend.k if scene.map_type == "discrete" else 0
    return render_text(pick(rng, load_wordings("captions")["short"]), k=k, top=where, **ctx)


def captions(scene: Scene, seed: int = 0) -> dict[str, Any]:
    """``{detailed, short, sentences}`` for one map, deterministic per seed."""
    sentences = caption_sentences(scene, seed)
    return {
        "detailed": " ".join(s["text"] for s in sentences),
        "short": short_caption(scene, seed),
        "sentences": sentences,
    }
