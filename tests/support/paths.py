"""Folders the tests read, found once from this file's place in the repository."""

from __future__ import annotations

from pathlib import Path

#: The repository root (pyproject.toml, app/, gpu/, resources/, tests/).
REPO = Path(__file__).resolve().parents[2]
#: The small MeasurementSets kept with the tests.
TEST_DATA = REPO / "tests" / "data"
#: Larger data shared between checkouts, beside the repository (may be absent).
SHARED_DATA = REPO.parent / "shared" / "data"
#: The array layouts shipped with uvlab (CASA ``.cfg`` files and the like).
ARRAYS = REPO / "resources" / "arrays"
