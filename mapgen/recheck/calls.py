"""Judgement calls of the re-check: why a disagreement is a matter of definition or of what MAPWise's image shows,
not a plain error (:func:`mapgen.recheck.verdicts.judgement_call` asks these on every disagreement).

- **One colour or several** (:func:`colour_kind_call`): the engine's line is a hue spread of
  :data:`~mapgen.questions.SINGLE_HUE_MAX_SPREAD` degrees; a disagreement on a legend of greys, with a spread in
  :data:`HUE_BAND`, or with a pale tint of another hue ending the ramp is ``definition_dependent``.
- **"Closest value" with no member in the class** (:func:`closest_call`): on a discrete map the template reads
  "closest" as "the same legend class"; when no member shares it the nearest class is no reading of the template.
- **Borders the image does not show** (:func:`unseen_call`): an inset's border with a country (Alaska, drawn away
  from Canada), a border only across a lake (Ohio and Pennsylvania with Canada, across Lake Erie), a border only at
  an enclave a few km² wide (Puducherry's Mahé in Kerala, Yanam in Andhra Pradesh), and union territories among
  "states" (India): when MAPWise's answer agrees without them, the disagreement is theirs to define; likewise a
  named group with another common definition (:data:`ALTERNATIVE_GROUPS`: Central India and the Central Zonal
  Council).
"""

from __future__ import annotations

import colorsys
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from mapgen.geo.names import UnknownNameError
from mapgen.questions import SINGLE_HUE_MAX_SPREAD, Question, hue_spread
from mapgen.recheck.parse import Parsed
from mapgen.scene import Scene

#: Hue spreads (degrees) where "one colour or several" is a judgement call: on the release, MAPWise's answers go
#: both ways from 60° to 110° (mint-to-teal ramps of 63-110° are "shades of the same colour" in all nine answers,
#: yellow-to-purple ones of 75-93° both ways) and its verified-answer column overturns ground_truth at 71°, 78°
#: and 93°; the engine's own line is :data:`~mapgen.questions.SINGLE_HUE_MAX_SPREAD`.
HUE_BAND = (20.0, 120.0)
#: The lightness above which, and the saturation under which, :func:`~mapgen.questions.hue_spread` measures no hue
#: (the paper's white; greys).
_LIGHT, _GREY = 0.92, 0.12
PALE_TINT = 0.95
"""Lightness up to which a saturated tint still shows its hue (#ffffd9, the cream that starts YlGnBu)."""

#: Regions drawn as insets (their place on the image is not their geographic position; their borders with a
#: country are not drawn).
INSETS: dict[str, frozenset[str]] = {"usa": frozenset({"AK", "HI"})}
#: Regions whose border with a country runs only across a lake (International Boundary Commission: Ohio and
#: Pennsylvania meet Ontario in Lake Erie only; Michigan's border runs along rivers a reader sees as touching).
WATER_ONLY: dict[str, dict[str, frozenset[str]]] = {"usa": {"bordering Canada": frozenset({"OH", "PA"})}}
#: Borders only at an enclave too small to see on a country map (Puducherry's Mahé, 9 km², in Kerala; Yanam,
#: 30 km², in Andhra Pradesh; ``data/atlas/borders_india.yaml`` lists them as borders).
ENCLAVE_BORDERS: dict[str, tuple[tuple[str, str], ...]] = {"india": (("KL", "PY"), ("AP", "PY"))}
#: Union territories (Constitution of India, First Schedule, before 2019: MAPWise's maps draw Jammu and Kashmir
#: whole, a state; Ladakh is its part there).
UNION_TERRITORIES: dict[str, frozenset[str]] = {"india": frozenset({"AN", "CH", "DN", "DD", "DH", "DL", "LD", "PY"})}


#: Named groups with another common definition (India's zonal councils, States Reorganisation Act 1956, are the
#: government's regions; "Central India" is often Madhya Pradesh and Chhattisgarh, the Central Zonal Council adds
#: Uttar Pradesh and Uttarakhand).
ALTERNATIVE_GROUPS: dict[str, dict[str, tuple[str, ...]]] = {"india": {
    "Central India": ("Central Zonal Council",), "North India": ("Northern Zonal Council",),
    "East India": ("Eastern Zonal Council",), "West India": ("Western Zonal Council",),
    "South India": ("Southern Zonal Council",), "Northeast India": ("North Eastern Council",)}}


#: Whether MAPWise's answer agrees with the question asked again on a scene (with other parameters, or None).
Agrees = Callable[[Scene, "dict[str, Any] | None"], bool]


# ---------------------------------------------------------------------------------------------- colours


def colour_kind_call(scene: Scene) -> tuple[str, str] | None:
    """Why "one colour or several" is a matter of definition for this legend: greys (no two saturated colours to
    measure a hue spread on), a hue spread inside :data:`HUE_BAND`, or a pale tint of another hue that the
    engine's measure leaves out; None when the answer is clear."""
    colors = [c.color for c in scene.legend.classes] if scene.map_type == "discrete" else list(scene.legend.colors)
    if sum(1 for c in colors if _chromatic(c)) < 2:
        return "definition_dependent", "the legend's colours are greys: whether greys are shades of one colour is a definition"
    spread = hue_spread(colors)
    if HUE_BAND[0] <= spread <= HUE_BAND[1]:
        return "definition_dependent", (f"hue spread {spread:.0f}° lies where one hue or several is a judgement call "
                                        f"({HUE_BAND[0]:.0f}-{HUE_BAND[1]:.0f}°; the engine's line is "
                                        f"{SINGLE_HUE_MAX_SPREAD:.0f}°)")
    tints = _arc([_hue(c) for c in colors if _chromatic(c, PALE_TINT)])
    if min(spread, tints) <= SINGLE_HUE_MAX_SPREAD < max(spread, tints):
        return "definition_dependent", (f"a pale tint of another hue ends the ramp: hue spread {tints:.0f}° with it, "
                                        f"{spread:.0f}° without (the engine leaves out tints lighter than "
                                        f"{_LIGHT:.2f}): one hue or several is a judgement call")
    return None


def _hue(color: str) -> float:
    return colorsys.rgb_to_hls(*(int(color[i:i + 2], 16) / 255 for i in (1, 3, 5)))[0] * 360


def _arc(hues: list[float]) -> float:
    """Smallest arc (degrees) holding ``hues`` (as :func:`~mapgen.questions.hue_spread` measures it)."""
    if len(hues) < 2:
        return 0.0
    hues = sorted(hues)
    return 360 - max([b - a for a, b in zip(hues, hues[1:])] + [hues[0] + 360 - hues[-1]])


def _chromatic(color: str, light: float = _LIGHT) -> bool:
    """A colour with a hue (the colours :func:`~mapgen.questions.hue_spread` measures: saturated, neither near
    black nor lighter than ``light``)."""
    r, g, b = (int(color[i:i + 2], 16) / 255 for i in (1, 3, 5))
    _h, lightness, saturation = colorsys.rgb_to_hls(r, g, b)
    return saturation >= _GREY and 0.08 < lightness < light


# ---------------------------------------------------------------------------------------------- closest


def closest_call(q: Question, scene: Scene, text: str) -> tuple[str, str] | None:
    """A discrete-map "closest value" question whose same-class reading finds no member (the answer is then the
    nearest class, which the template does not ask)."""
    if scene.map_type != "discrete" or not re.search(r"\bclosest\b", text, re.IGNORECASE):
        return None
    empty = any(str(step.get("call", "")).startswith("closest_in_value") and step.get("result") in ([], ())
                for step in q.program)
    if not empty:
        return None
    return "outside_template_domain", ("'closest value' is read as the same legend class, and no member shares it: "
                                       "the nearest class is outside the template's domain")


# ---------------------------------------------------------------------------------------------- unseen borders


def unseen_call(parsed: Parsed, scene: Scene, text: str, agrees: Agrees) -> tuple[str, str] | None:
    """(bucket, why) when MAPWise's answer agrees once what the image does not show is left out (insets' and
    lake-only borders with a country, enclave borders, union territories among "states"); ``agrees`` asks the
    question again on a scene."""
    groups = [str(parsed.params[p.name]) for p in parsed.template.params if p.type == "RegionGroup"]
    for call in (_foreign_call, _enclave_call, _territory_call):
        found = call(scene, groups, text, agrees)
        if found is not None:
            return found
    return _alternative_call(parsed, scene, agrees)


def _alternative_call(parsed: Parsed, scene: Scene, agrees: Agrees) -> tuple[str, str] | None:
    """A named group with another common definition (:data:`ALTERNATIVE_GROUPS`) under which MAPWise's answer
    agrees."""
    for p in parsed.template.params:
        if p.type != "RegionGroup":
            continue
        for other in ALTERNATIVE_GROUPS.get(scene.country, {}).get(str(parsed.params[p.name]), ()):
            if other in scene.groups and agrees(scene, {**parsed.params, p.name: other}):
                return "definition_dependent", (f"'{parsed.params[p.name]}' has another common definition, the "
                                                f"{other} ({_names(scene, sorted(scene.group(other)))}), under which "
                                                "MAPWise's answer agrees")
    return None


def _foreign_call(scene: Scene, groups: list[str], text: str, agrees: Agrees
                  ) -> tuple[str, str] | None:
    """An inset's border with a country, or one only across a lake (with or without the inset)."""
    foreign = [g for g in groups if _kind(scene, g) == "foreign_border"]
    insets = sorted({c for g in foreign for c in scene.group(g) & _on_map(scene, INSETS.get(scene.country, ()))})
    water = sorted({c for g in foreign
                    for c in scene.group(g) & _on_map(scene, WATER_ONLY.get(scene.country, {}).get(g, ()))})
    if insets and agrees(scene.without(insets), None):
        return "inset_position", (f"{_names(scene, insets)} drawn as an inset, away from the country it borders: the "
                                  f"border is not on the image; without it MAPWise's answer agrees")
    for left in ([water, insets + water] if water else []):
        if agrees(scene.without(left), None):
            return "definition_dependent", (f"{_names(scene, left)} border the country only across a lake or as an "
                                            "inset (not on the image): whether that is bordering is a definition; "
                                            "without them MAPWise's answer agrees")
    return None


def _enclave_call(scene: Scene, groups: list[str], text: str, agrees: Agrees
                  ) -> tuple[str, str] | None:
    """A border only at an enclave too small to see."""
    pairs = [(a, b) for a, b in (tuple(sorted(_on_map(scene, p))) for p in ENCLAVE_BORDERS.get(scene.country, ()))
             if b in scene.regions[a].neighbors]
    if not pairs or not agrees(without_borders(scene, pairs), None):
        return None
    shown = ", ".join(f"{scene.regions[a].name}-{scene.regions[b].name}" for a, b in pairs)
    return "illegible_region", (f"the answer depends on a border only at an enclave too small to see ({shown}); "
                                "without it MAPWise's answer agrees")


def _territory_call(scene: Scene, groups: list[str], text: str, agrees: Agrees
                    ) -> tuple[str, str] | None:
    """Union territories in the group of a question about "states" (on the whole map when it names no group)."""
    union = _on_map(scene, UNION_TERRITORIES.get(scene.country, ()))
    territories = sorted({c for g in groups for c in scene.group(g) & union} if groups else union)
    if not territories or not re.search(r"\bstates?\b", text, re.IGNORECASE) or not agrees(scene.without(territories), None):
        return None
    where = "among the group's regions" if groups else "on the map"
    return "definition_dependent", (f"the union territories {_names(scene, territories)} are {where}: whether "
                                    "'states' takes them in is a definition; without them MAPWise's answer agrees")


def _on_map(scene: Scene, codes: Iterable[str]) -> frozenset[str]:
    """Base-atlas codes as this map codes them (India's MAPWise edition calls Puducherry PD); absent ones left out."""
    out = set()
    for code in codes:
        try:
            out.add(scene.resolve(code))
        except (UnknownNameError, ValueError, KeyError):
            continue
    return frozenset(out)


def _kind(scene: Scene, group: str) -> str | None:
    try:
        return scene.group_info(group).kind
    except (KeyError, ValueError, UnknownNameError):
        return None


def _names(scene: Scene, codes: Iterable[str]) -> str:
    return ", ".join(scene.regions[c].name for c in codes)


def without_borders(scene: Scene, pairs: Iterable[tuple[str, str]]) -> Scene:
    """``scene`` with the borders ``pairs`` left out (neighbours and "bordering <region>" groups)."""
    cut: dict[str, set[str]] = {}
    for a, b in pairs:
        cut.setdefault(a, set()).add(b)
        cut.setdefault(b, set()).add(a)
    regions = {c: replace(r, neighbors=r.neighbors - cut.get(c, set())) for c, r in scene.regions.items()}
    gazetteer = scene.gazetteer
    neighbours = {c: n - cut.get(c, set()) for c, n in gazetteer.neighbors.items()}
    groups: dict[str, Any] = dict(scene.groups)
    for code, gone in cut.items():
        name = f"bordering {scene.regions[code].name}"
        if name in groups:
            groups[name] = replace(groups[name], members=groups[name].members - gone)
    return replace(scene, regions=regions, gazetteer=replace(gazetteer, neighbors=neighbours, groups=groups))
