"""Sessions: JSON round trips, scene import, modified layouts, the window's whole state."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from tests.app.gui.conftest import SMALL_OBS
from uvlab.app.gui.jobs import ImagingOptions, MSSelection
from uvlab.app.gui.session import (
    SessionError,
    SessionState,
    from_scene,
    layout_with_enu,
    load_session,
    save_session,
)
from uvlab.app.skymodel import Component, SkyModel


def test_json_round_trip_is_exact_and_readable(tmp_path):
    sky = SkyModel(
        (
            Component("a", "point", 201.3, -43.0, (1.0, 0.1, 0.0, 0.0), 1.4e9, -0.7),
            Component("g", "gaussian", 201.4, -43.1, (0.5, 0, 0, 0), 1.4e9, 0.0, 40.0, 20.0, 30.0),
        ),
        "two",
    )
    state = SessionState(
        observation=SMALL_OBS,
        source="ms",
        modified_antennas_enu=((1.0, 2.0, 3.0),) * 7,
        smearing=False,
        sky=sky,
        imaging=ImagingOptions(
            npix=96, weighting="briggs", robust=-0.5, algorithm="hybrid", oversample=8
        ),
        device="cpu",
        ms=MSSelection("/data/x.ms", 1, 0, "CORRECTED_DATA", "XX"),
        compare=(
            ImagingOptions(algorithm="conv", kernel="pswf", accuracy="support", support=6),
            ImagingOptions(algorithm="pruned-nn", oversample=32),
        ),
    )
    path = save_session(state, tmp_path / "s.json")
    text = path.read_text()
    assert '"format": "uvlab session"' in text and "\n  " in text  # indented JSON
    assert json.loads(text)["imaging"]["algorithm"] == "hybrid"
    assert json.loads(text)["compare"][1]["oversample"] == 32
    assert load_session(path) == state
    # a file from before compare entries were saved loads, with none
    old = json.loads(text)
    del old["compare"]
    (tmp_path / "old.json").write_text(json.dumps(old))
    assert load_session(tmp_path / "old.json") == replace(state, compare=None)


def test_bad_session_files_raise_with_the_file_name(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(SessionError, match=r"bad\.json"):
        load_session(bad)
    bad.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(SessionError, match="not a uvlab session"):
        load_session(bad)
    d = SessionState(observation=SMALL_OBS).to_dict()
    d["imaging"]["npix"] = 101
    bad.write_text(json.dumps(d))
    with pytest.raises(SessionError, match="even"):
        load_session(bad)


def test_layout_with_enu_moves_only_what_was_asked():
    from uvlab.app.layouts import load_layout

    lay = load_layout("kat-7")
    enu = lay.enu()
    enu[3] += [250.0, -80.0, 0.0]
    moved = layout_with_enu(lay, enu)
    np.testing.assert_allclose(moved.enu(), enu, atol=1e-6)
    np.testing.assert_array_equal(moved.ecef[:3], lay.ecef[:3])
    assert moved.name == "kat-7 (modified)" and moved.site_lon_rad == lay.site_lon_rad
    with pytest.raises(ValueError, match="7 antennas"):
        layout_with_enu(lay, enu[:5])


def test_from_scene_places_the_demo_sky_like_run_scene():
    from uvlab.app.scene import ImagingSettings, Scene

    scene = Scene(observation=SMALL_OBS, sky="point", imaging=ImagingSettings(npix=64, eps=1e-6))
    state = from_scene(scene)
    assert state.imaging.npix == 64 and state.imaging.eps == 1e-6
    (c,) = state.sky.components
    assert (c.ra_deg, c.dec_deg) == pytest.approx((SMALL_OBS.ra_deg, SMALL_OBS.dec_deg))


def test_window_session_round_trip(make_window, small_state, wait_result, tmp_path, qtbot):
    w = make_window(small_state)
    wait_result(w)
    w.imaging_panel.weighting_combo.setCurrentText("briggs")
    w.imaging_panel.robust_spin.setValue(0.5)
    w.imaging_panel.npix_spin.setValue(96)
    w.imaging_panel.set_algorithm("nn-oversampled")
    w.obs_panel.dec.set_value(-50.25)
    enu = w.views.array_view.positions()
    w.views.array_view.finish_drag(2, enu[2, 0] + 120.0, enu[2, 1] - 40.0)
    w.views.dirty_view.clicked.emit(3e-3, -2e-3)
    entries = (
        ImagingOptions(algorithm="hybrid", oversample=8),
        ImagingOptions(algorithm="conv", kernel="kb", accuracy="support", support=5),
        ImagingOptions(algorithm="nn"),
    )
    w.compare_panel.set_entries(entries)
    wait_result(w)
    state = w.session_state()
    assert [e.algorithm for e in state.compare] == ["hybrid", "conv", "nn"]
    assert w.save_session(tmp_path / "lab.json")
    other = make_window(replace(small_state, imaging=ImagingOptions(npix=64)), run_on_start=False)
    assert other.load_session(tmp_path / "lab.json")
    again = other.session_state()
    assert again == state
    assert again.imaging.algorithm == "nn-oversampled" and again.imaging.robust == 0.5
    assert [(e.algorithm, e.kernel, e.support, e.oversample) for e in again.compare] == [
        (e.algorithm, e.kernel, e.support, e.oversample) for e in state.compare
    ]
    assert again.compare[1].kernel == "kb" and again.compare[1].support == 5
    assert again.observation.dec_deg == -50.25 and len(again.sky) == len(small_state.sky) + 1
    np.testing.assert_allclose(
        np.array(again.modified_antennas_enu)[2, :2], enu[2, :2] + [120.0, -40.0], atol=1e-6
    )
    out = wait_result(other).output  # loading runs it
    assert out.spec.npix == 96 and out.algorithm == "nn-oversampled"
