"""Colour maps of the views: every one ships with pyqtgraph, none imports matplotlib."""

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("pyqtgraph")

from uvlab.widgets._pg import COLORMAPS, DIVERGING, get_colormap


def test_every_colormap_builds_a_256_entry_table():
    for name in COLORMAPS:
        lut = get_colormap(name).getLookupTable(nPts=256)
        assert lut.shape[0] == 256 and lut.dtype == np.uint8, name


def test_diverging_map_runs_blue_white_red():
    (name,) = DIVERGING
    lut = get_colormap(name).getLookupTable(nPts=255).astype(int)
    lo, mid, hi = lut[0, :3], lut[127, :3], lut[-1, :3]
    assert lo[2] > lo[0] + 100  # blue end
    assert hi[0] > hi[2] + 100  # red end
    assert mid.min() > 200  # near white in the middle


def test_views_never_import_matplotlib():
    """matplotlib's pyplot costs over a second of the window's start (issue 13)."""
    code = (
        "import sys; from uvlab.widgets._pg import COLORMAPS, get_colormap\n"
        "[get_colormap(n) for n in COLORMAPS]\n"
        "import uvlab.widgets.image_view, uvlab.widgets.uv_coverage_view\n"
        "print('matplotlib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
