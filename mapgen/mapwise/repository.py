"""MAPWise's repository layout: the names and headers of its question tables and folders, as released.

Shared by the reader (:mod:`mapgen.recheck.importer`) and the writer (:mod:`mapgen.export.mapwise`)::

    dataset/<country>/<table>  metadata/ (metadata/hatched/)  with_annotations/  wo_annotations/  hatched/  json_data/
    dataset/counter_factuals/<kind>/<kind>_data.csv  <kind>_maps/  json_data/
"""

from __future__ import annotations

from pathlib import Path

COUNTRY_TABLES: dict[str, tuple[str, tuple[str, ...]]] = {
    "usa": ("final_us_cleaned8.csv", ("map_no", "template_no", "question", "ground_truth", "verified answer",
                                      "c_or_d", "relative_region (y/n)", "")),
    "india": ("final_india_cleaned4.csv", ("map_id", "template_no", "question", "ground_truth", "Rel reg", "type",
                                           "")),
    "china": ("final_china_cleaned3.csv", ("map_no", "template_no", "question", "ground_truth", "c_or_d",
                                           "relative_region (y/n)", "comments",
                                           "type (Single/list/Binary/Count/Range etc)", "type", "")),
}
"""Country → (question table file name, its header exactly as MAPWise released it)."""
CF_COLUMNS: tuple[str, ...] = ("map_no", "template_no", "question", "ground_truth", "verified answer",
                               "relative_region (y/n)", "c_or_d", "type")
"""Header of ``counter_factuals/<kind>/<kind>_data.csv`` (``jumb`` says ``original_data_answer`` for
``ground_truth``)."""
CF_KINDS: dict[str, str] = {"imaginary": "img", "shuffled": "shuff", "jumbled": "jumb", "original": "orgs"}
CF_FOLDER = "counter_factuals"
CF_ANSWER = "verified answer"
"""The counterfactual tables' answer column: what ``json_data`` (MAPWise's evaluation input) gives as
``ground_truth``. The column before it (``ground_truth``, ``original_data_answer`` in ``jumb``) is the answer on the
original map, with the original names (checked on repo-sample: every json_data record equals ``verified answer``)."""
VARIANT_FOLDERS: dict[str, str] = {"annotated": "with_annotations", "unannotated": "wo_annotations",
                                   "hatched": "hatched"}
HATCHED_METADATA = "metadata/hatched"
"""mapgen's addition to the layout: a hatched image's own metadata (``metadata/hatched/<stem>.json``). mapgen's
hatched variant has its own legend (grey shades and patterns, and its own classes where a class would hold only
specks too small for a pattern), so the metadata of its colour siblings would contradict it; the reader judges
questions asked on the hatched image only against it."""
SAMPLE_TABLE = "questions.csv"
"""The question table of the older per-country sample layout (``<country>/metadata/`` + ``questions.csv``)."""


def question_table(folder: str | Path) -> Path:
    """The question table of a MAPWise country folder: ``questions.csv`` (sample layout), the country's released
    table (``final_us_cleaned8.csv`` …), or a single ``final_*.csv`` / ``*_data.csv``."""
    folder = Path(folder)
    names = [SAMPLE_TABLE] + [name for name, _ in COUNTRY_TABLES.values()]
    for name in names:
        if (folder / name).is_file():
            return folder / name
    found = sorted(folder.glob("final_*.csv")) + sorted(folder.glob("*_data.csv"))
    if len(found) == 1:
        return found[0]
    raise FileNotFoundError(
        f"No MAPWise question table in {folder}: expected {SAMPLE_TABLE} or one of {', '.join(names[1:])} "
        f"(found {[p.name for p in found] or 'none'}). Give a country folder such as <repository>/dataset/usa, "
        f"or the repository root to import every country.")


def country_folders(root: str | Path) -> dict[str, Path]:
    """Country → folder for a MAPWise repository root, its ``dataset/``, or a sample root holding country
    folders (empty when ``root`` is itself a country folder)."""
    root = Path(root)
    base = root / "dataset" if (root / "dataset").is_dir() else root
    out = {}
    for country in COUNTRY_TABLES:
        folder = base / country
        if folder.is_dir() and (folder / "metadata").is_dir():
            out[country] = folder
    return out


def cf_kind(folder: str | Path) -> str | None:
    """MAPWise's kind (``img``, ``shuff``, ``jumb``, ``orgs``) of a counterfactual folder holding its
    ``<kind>_data.csv``; None for any other folder."""
    folder = Path(folder)
    kind = folder.name
    return kind if kind in CF_KINDS.values() and (folder / f"{kind}_data.csv").is_file() else None


def cf_folders(base: str | Path) -> dict[str, Path]:
    """``counter_factuals/<kind>`` → folder for each kind under ``base`` (a ``dataset/`` or ``counter_factuals/``)."""
    base = Path(base)
    cf = base if base.name == CF_FOLDER else base / CF_FOLDER
    return {f"{CF_FOLDER}/{k}": cf / k for k in sorted(CF_KINDS.values()) if cf_kind(cf / k)}


def question_folders(path: str | Path) -> dict[str, Path]:
    """Every question folder a path holds, by name (``usa``, …, ``counter_factuals/img``, …): a repository root
    or its ``dataset/`` (all countries and counterfactual kinds), ``counter_factuals/`` (its kinds), a sample root
    of country folders, a single country folder or a single counterfactual kind folder. Raises ``ValueError``
    (one line naming the layouts expected) for anything else."""
    path = Path(path)
    if not path.is_dir():
        raise ValueError(f"{path} is not a folder; expected a MAPWise repository root, its dataset/, a country "
                         f"folder or a counter_factuals/<kind> folder.")
    if kind := cf_kind(path):
        return {f"{CF_FOLDER}/{kind}": path}
    if (path / "metadata").is_dir():
        return {path.name: path}
    base = path / "dataset" if (path / "dataset").is_dir() else path
    found = {**country_folders(base), **cf_folders(base)}
    if not found:
        raise ValueError(
            f"{path} is not a MAPWise folder: expected a repository root (dataset/<country>/ with metadata/ and "
            f"{', '.join(n for n, _ in COUNTRY_TABLES.values())}), its dataset/, a country folder with metadata/ "
            f"and its question table ({SAMPLE_TABLE} in the sample layout), or counter_factuals/<kind>/ with "
            f"<kind>_data.csv.")
    return found


def metadata_folder(folder: str | Path) -> Path:
    """The metadata folder of a MAPWise question folder: its own ``metadata/`` (country folders, and
    counterfactual kinds as mapgen's export writes them); for a counterfactual kind as MAPWise released it (USA
    maps numbered as in ``dataset/usa``, no metadata of its own) ``dataset/usa/metadata``: the original map's
    values and classes, which ``img``/``shuff`` keep and ``jumb`` does not (:mod:`mapgen.recheck.cfimport`)."""
    folder = Path(folder)
    own = folder / "metadata"
    if own.is_dir() or cf_kind(folder) is None:
        return own
    return folder.parent.parent / "usa" / "metadata"


def map_image(folder: str | Path, map_ref: str) -> Path | None:
    """The published PNG of a map of a MAPWise country (or counterfactual) folder: ``with_annotations/``, else
    ``wo_annotations/``, else ``<kind>_maps/``; file ``map_<N>.png`` (USA) or ``map<ID>.png``."""
    folder = Path(folder)
    subs = [folder / VARIANT_FOLDERS["annotated"], folder / VARIANT_FOLDERS["unannotated"],
            *sorted(folder.glob("*_maps"))]
    for sub in subs:
        for name in (f"map_{map_ref}.png", f"map{map_ref}.png"):
            if (sub / name).is_file():
                return sub / name
    return None
