"""The CPU gridders' two rungs side by side (uvlab.gpu.gridders.jit_grid.cpu_rung)."""

from __future__ import annotations

import pytest

from uvlab.gpu.gridders import jit_grid

#: The tests that run the numba rung skip where numba is not importable.
needs_numba = pytest.mark.skipif(
    jit_grid._loaded()[0] is None, reason=f"numba not importable: {jit_grid._loaded()[1]}"
)


def both_rungs(monkeypatch, fn):
    """(NumPy rung's result, numba rung's result) of ``fn()``, the rung forced with
    ``UVLAB_CPU_RUNG``."""
    out = []
    for rung in ("numpy", "numba"):
        monkeypatch.setenv(jit_grid.RUNG_ENV, rung)
        assert jit_grid.cpu_rung() == rung
        out.append(fn())
    return out
