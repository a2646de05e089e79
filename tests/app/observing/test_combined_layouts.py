"""Combined layouts (VLA A + D as one observation): baselines within each configuration only.

Oracle: each configuration observed on its own with the same spec; the combined
observation's uvw rows must be exactly theirs, side by side, and nothing else.
"""

from __future__ import annotations

import numpy as np
import pytest

from uvlab.app.observing.layouts import LayoutError, combine_layouts, load_layout
from uvlab.app.observing.observation import ObservationSpec, simulate_observation


def _obs(layout):
    spec = ObservationSpec(
        layout, 150.0, 30.0, start_iso="2026-03-01T06:00:00", duration_h=1.0, int_s=600.0
    )
    return simulate_observation(spec)


def test_combined_uvw_are_each_configurations_own():
    a, d = load_layout("vla.a"), load_layout("vla.d")
    both = load_layout("vla.a+vla.d")
    assert both.nant == a.nant + d.nant
    p, q = both.baselines()
    assert len(p) == a.nant * (a.nant - 1) // 2 + d.nant * (d.nant - 1) // 2
    assert not np.any((p < a.nant) != (q < a.nant))  # no baseline across configurations
    obs, oa, od = _obs(both), _obs(a), _obs(d)
    na = len(oa.ant1)
    np.testing.assert_allclose(obs.uvw[:, :na], oa.uvw, rtol=0, atol=1e-9)
    np.testing.assert_allclose(obs.uvw[:, na:], od.uvw, rtol=0, atol=1e-9)
    assert both.max_baseline_m() == pytest.approx(max(a.max_baseline_m(), d.max_baseline_m()))
    assert both.antenna_names[0] == f"vla.a:{a.antenna_names[0]}"


def test_the_same_layout_twice_keeps_names_unique():
    twice = load_layout("vla.d+vla.d")
    assert len(set(twice.antenna_names)) == twice.nant == 2 * load_layout("vla.d").nant


def test_bad_combinations_are_refused_in_one_line():
    with pytest.raises(LayoutError, match="within 100 km"):
        load_layout("vla.d+meerkat")
    with pytest.raises(LayoutError, match="empty name"):
        load_layout("vla.a+")
    with pytest.raises(LayoutError, match="at least two"):
        combine_layouts([load_layout("vla.a")])
    with pytest.raises(LayoutError, match="unknown layout"):
        load_layout("vla.a+nosuch")


def test_moving_an_antenna_keeps_the_subarrays():
    from uvlab.app.lab.placement import layout_with_enu

    both = load_layout("vla.a+vla.d")
    enu = both.enu()
    enu[0, 0] += 10.0
    moved = layout_with_enu(both, enu)
    np.testing.assert_array_equal(moved.subarray, both.subarray)
    np.testing.assert_array_equal(moved.baselines()[0], both.baselines()[0])
