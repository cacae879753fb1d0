"""Test-session setup shared by every test module."""

from __future__ import annotations

import os
import tempfile

# Hermetic Hugging Face caches: `datasets` fingerprints local parquet folders loosely, so a cache left by an
# earlier run (same machine, same relative file names) could be served instead of the files a test just wrote.
os.environ["HF_DATASETS_CACHE"] = tempfile.mkdtemp(prefix="mapgen-hf-datasets-")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
