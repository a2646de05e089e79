"""The saved state: JSON round trips, older session and scene files, named skies, layouts."""

from __future__ import annotations

import json
from dataclasses import asdict, replace

import numpy as np
import pytest

from tests.support.observations import SMALL_OBS
from uvlab.app.lab.imaging import DEFAULT_NPIX, ImagingOptions
from uvlab.app.lab.jobs import MSSelection
from uvlab.app.lab.placement import demo_sky_for, layout_with_enu
from uvlab.app.lab.session import (
    DEFAULT_SESSION,
    NamedSky,
    SessionError,
    SessionState,
    default_session,
    load_session,
    save_session,
)
from uvlab.app.skymodel import Component, SkyModel

#: A version-1 session as the window saved it before σ and the kernel-size choice were
#: renamed (``padding``, ``accuracy``), trimmed to what matters here.
VERSION_1 = """{
  "format": "uvlab session", "version": 1, "source": "synthetic",
  "observation": {"layout": "kat-7", "ra_deg": 201.365, "dec_deg": -43.019,
                  "start_iso": null, "duration_h": null, "ha_start_h": -3.0, "ha_stop_h": 3.0,
                  "date_iso": null, "int_s": 600.0, "freq_hz": 1400000000.0,
                  "chan_width_hz": 2000000.0, "nchan": 2, "elevation_limit_deg": 15.0},
  "modified_antennas_enu": null, "smearing": true,
  "sky": {"name": "one", "components": [{"name": "a", "kind": "point", "ra_deg": 201.3,
          "dec_deg": -43.0, "stokes": [1.0, 0.0, 0.0, 0.0], "ref_freq_hz": 1400000000.0,
          "spectral_index": -0.7, "major_arcsec": 0.0, "minor_arcsec": 0.0, "pa_deg": 0.0}]},
  "imaging": {"npix": 96, "cell_arcsec": null, "weighting": "natural", "robust": 0.0,
              "taper_arcsec": 0.0, "algorithm": "hybrid", "kernel": "kb",
              "accuracy": "support", "eps": 1e-05, "support": 5, "oversample": 8,
              "padding": 1.5, "precision": "double"},
  "device": "cpu", "ms": null,
  "compare": [{"npix": 96, "algorithm": "conv", "accuracy": "eps", "eps": 1e-06,
               "padding": 1.25}, {"npix": 96, "algorithm": "nn"}]
}"""


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
            ImagingOptions(algorithm="conv", kernel="pswf", kernel_size="support", support=6),
            ImagingOptions(algorithm="pruned-nn", oversample=32),
        ),
    )
    path = save_session(state, tmp_path / "s.json")
    text = path.read_text()
    assert '"format": "uvlab session"' in text and "\n  " in text  # indented JSON
    d = json.loads(text)
    assert d["version"] == 2 and d["imaging"]["algorithm"] == "hybrid"
    assert d["imaging"]["sigma"] == 2.0 and "padding" not in d["imaging"]
    assert d["compare"][0]["kernel_size"] == "support" and d["compare"][1]["oversample"] == 32
    assert load_session(path) == state
    # a file from before compare entries were saved loads, with none
    del d["compare"]
    (tmp_path / "old.json").write_text(json.dumps(d))
    assert load_session(tmp_path / "old.json") == replace(state, compare=None)


def test_a_version_1_session_loads_with_its_old_names(tmp_path):
    path = tmp_path / "v1.json"
    path.write_text(VERSION_1)
    state = load_session(path)
    im = state.imaging
    assert (im.npix, im.algorithm, im.kernel, im.kernel_size, im.support) == (
        96,
        "hybrid",
        "kb",
        "support",
        5,
    )
    assert (im.sigma, im.oversample) == (1.5, 8)
    assert [(e.algorithm, e.kernel_size, e.eps, e.sigma) for e in state.compare] == [
        ("conv", "eps", 1e-6, 1.25),
        ("nn", "eps", 1e-5, 2.0),
    ]
    assert state.sky.components[0].spectral_index == -0.7 and state.device == "cpu"
    # saved again, it is a version-2 file that loads to the same state
    assert load_session(save_session(state, tmp_path / "v2.json")) == state


def test_an_old_scene_file_loads_and_places_its_demo_sky(tmp_path):
    old = {
        "observation": asdict(SMALL_OBS),
        "sky": "point",
        "fov_fraction": 0.6,
        "smearing": False,
        "imaging": {
            "npix": 64,
            "cell_arcsec": None,
            "weighting": "natural",
            "robust": 0.0,
            "taper_arcsec": 0.0,
            "algorithm": "nn",
            "kernel": "es",
            "eps": 1e-6,
            "precision": "single",
        },
    }
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(old, indent=2))
    raw = load_session(path, what="scene", resolve=False)
    assert raw.sky == NamedSky("point", 0.6) and raw.smearing is False
    assert (raw.imaging.npix, raw.imaging.algorithm, raw.imaging.eps) == (64, "nn", 1e-6)
    assert raw.imaging.precision == "single" and raw.source == "synthetic"
    state = load_session(path, what="scene")
    (c,) = state.sky.components
    assert (c.ra_deg, c.dec_deg) == pytest.approx((SMALL_OBS.ra_deg, SMALL_OBS.dec_deg))
    # scene files are read strictly, as they were
    old["imaging"]["npx"] = 256
    path.write_text(json.dumps(old))
    with pytest.raises(SessionError, match=r"scene\.json: imaging: unknown key npx"):
        load_session(path, what="scene")


def test_a_named_sky_is_kept_by_name_and_spread_over_the_image(tmp_path):
    state = SessionState(SMALL_OBS, sky=NamedSky("teaching", 0.5), imaging=ImagingOptions(npix=64))
    path = save_session(state, tmp_path / "named.json")
    assert json.loads(path.read_text())["sky"] == {"demo": "teaching", "fov_fraction": 0.5}
    assert load_session(path, resolve=False) == state
    small = load_session(path).sky
    assert small == demo_sky_for("teaching", SMALL_OBS, state.imaging, 0.5)
    big = replace(state, imaging=ImagingOptions(npix=128)).resolved().sky

    def spread(sky):
        return np.ptp([c.ra_deg for c in sky.components])

    assert spread(big) == pytest.approx(2 * spread(small), rel=1e-3)
    request = state.job_request("aliasing", device="cpu", preview=False, threads=0)
    assert request.sky == small and request.task == "aliasing" and request.threads == 0


def test_the_default_state_is_the_window_s_and_the_demo_s():
    assert DEFAULT_SESSION.imaging == ImagingOptions() and ImagingOptions().npix == DEFAULT_NPIX
    assert DEFAULT_SESSION.sky == NamedSky("teaching", 0.6)
    state = default_session()
    assert state.sky == DEFAULT_SESSION.resolved().sky and len(state.sky) > 1


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
    d["imaging"]["npix"] = 64
    d["sky"] = {"demo": "no such sky"}
    bad.write_text(json.dumps(d))
    with pytest.raises(SessionError, match=r"bad\.json: .*no such sky"):
        load_session(bad)


def test_layout_with_enu_moves_only_what_was_asked():
    from uvlab.app.observing.layouts import load_layout

    lay = load_layout("kat-7")
    enu = lay.enu()
    enu[3] += [250.0, -80.0, 0.0]
    moved = layout_with_enu(lay, enu)
    np.testing.assert_allclose(moved.enu(), enu, atol=1e-6)
    np.testing.assert_array_equal(moved.ecef[:3], lay.ecef[:3])
    assert moved.name == "kat-7 (modified)" and moved.site_lon_rad == lay.site_lon_rad
    with pytest.raises(ValueError, match="7 antennas"):
        layout_with_enu(lay, enu[:5])
    state = SessionState(SMALL_OBS, modified_antennas_enu=tuple(map(tuple, enu)))
    np.testing.assert_allclose(state.observation_for_job().layout.enu(), enu, atol=1e-6)
