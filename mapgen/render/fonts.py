"""The Latin font families a style may name and their files, found without importing matplotlib (a style
checks its fonts when it loads; :mod:`mapgen.render.text` draws with them)."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def _mpl_data() -> Path:
    """matplotlib's ``mpl-data`` folder (what ``matplotlib.get_data_path()`` returns), found without importing it."""
    spec = importlib.util.find_spec("matplotlib")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(locations[0] if locations else ".") / "mpl-data"


_MPL_FONTS = _mpl_data() / "fonts" / "ttf"
_SYSTEM_FONTS = Path("/usr/share/fonts/truetype")
FONT_FILE = _MPL_FONTS / "DejaVuSans.ttf"
LATIN = "DejaVu Sans"
#: Latin font families a style may name: matplotlib's DejaVu (always there) and Debian's DejaVu and Noto
#: (``fonts-dejavu-core``, ``fonts-dejavu-extra``, ``fonts-noto-core``, installed by ``.ci/run``).
FAMILIES: dict[str, Path] = {
    LATIN: FONT_FILE,
    "DejaVu Sans Bold": _MPL_FONTS / "DejaVuSans-Bold.ttf",
    "DejaVu Serif": _MPL_FONTS / "DejaVuSerif.ttf",
    "DejaVu Serif Bold": _MPL_FONTS / "DejaVuSerif-Bold.ttf",
    "DejaVu Sans Condensed": _SYSTEM_FONTS / "dejavu" / "DejaVuSansCondensed.ttf",
    "DejaVu Sans Condensed Bold": _SYSTEM_FONTS / "dejavu" / "DejaVuSansCondensed-Bold.ttf",
    "DejaVu Sans Mono": _MPL_FONTS / "DejaVuSansMono.ttf",
    "Noto Sans": _SYSTEM_FONTS / "noto" / "NotoSans-Regular.ttf",
    "Noto Sans Bold": _SYSTEM_FONTS / "noto" / "NotoSans-Bold.ttf",
    "Noto Serif": _SYSTEM_FONTS / "noto" / "NotoSerif-Regular.ttf",
    "Noto Serif Bold": _SYSTEM_FONTS / "noto" / "NotoSerif-Bold.ttf",
}


def installed_families() -> list[str]:
    """The families of :data:`FAMILIES` whose font file is on this machine."""
    return [family for family, path in FAMILIES.items() if path.is_file()]


def unknown_family(family: str) -> str | None:
    """Why a style cannot name ``family`` (not one of :data:`FAMILIES`), listing the installed ones; else None."""
    if family in FAMILIES:
        return None
    return f"unknown font family {family!r}; choose one of {', '.join(installed_families())}"
