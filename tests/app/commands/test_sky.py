"""Tests for app/commands/sky.py, run through a fresh argparse parser."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from uvlab.app.commands import sky
from uvlab.app.skymodel import DEMO_SKIES, SkyModelError, demo_sky, read_sky, read_wsclean


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="uvlab")
    sky.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return args.func(args)


def test_sky_list_names_every_demo(capsys):
    assert run(["sky", "list"]) == 0
    out = capsys.readouterr().out
    for name, text in DEMO_SKIES.items():
        assert name in out and text in out
    assert "example-field" in out


def test_sky_show_demo_table(capsys):
    assert run(["sky", "show", "pair", "--ra", "15", "--dec", "-45", "--fov", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "2 components" in out[0]
    rows = [r.split() for r in out[3:]]
    assert [r[1] for r in rows] == ["bright", "faint"]
    # l, m columns (arcmin) are the intended 0.15, 0.10 of a 2 deg field
    assert float(rows[0][-2]) == pytest.approx(0.15 * 120, abs=1e-3)
    assert float(rows[0][-1]) == pytest.approx(0.10 * 120, abs=1e-3)


def test_sky_show_file_and_missing_file(tmp_path, capsys):
    assert run(["sky", "show", "example-field"]) == 0
    assert "lobe" in capsys.readouterr().out
    with pytest.raises(SkyModelError, match=r"nope\.txt: no such file"):
        run(["sky", "show", str(tmp_path / "nope.txt")])


def test_sky_convert_wsclean_and_demo(tmp_path, capsys):
    src = tmp_path / "in-sources.txt"
    src.write_text(
        "Format = Name, Type, Ra, Dec, I, SpectralIndex, LogarithmicSI, ReferenceFrequency, "
        "MajorAxis, MinorAxis, Orientation\n"
        "s0,GAUSSIAN,-00:36:28.234,58.50.46.396,5.0,[-0.7],true,1.5e8,70.6,35.3,12\n"
        "s1,POINT,01:00:00.5,-30.00.00,1.0,[],false,1.5e8,,,\n",
        encoding="utf-8",
    )
    dst = tmp_path / "out.txt"
    assert run(["sky", "convert", str(src), str(dst)]) == 0
    assert "wrote 2 component(s)" in capsys.readouterr().out
    assert read_sky(dst) == read_wsclean(src)
    with pytest.raises(SkyModelError, match="already exists"):
        run(["sky", "convert", str(src), str(dst)])
    assert (
        run(
            [
                "sky",
                "convert",
                "random",
                str(dst),
                "--force",
                "--n",
                "5",
                "--seed",
                "3",
                "--ra",
                "10",
                "--dec",
                "-20",
            ]
        )
        == 0
    )
    assert read_sky(dst) == demo_sky("random", 10, -20, n=5, seed=3)


def test_sky_needs_an_action():
    with pytest.raises(SystemExit):
        run(["sky"])


def test_a_random_sky_too_large_is_refused_at_once(tmp_path, monkeypatch):
    from tests.support.cli import run_cli
    from tests.support.memory import fake_memory

    code, out, err = run_cli("sky", "show", "random", "--n", "10000000")
    assert (code, out) == (1, "")
    assert err == (
        "uvlab sky: error: random sky of 10000000 sources refused: at most 100000 "
        "(put a larger model in a sky file)\n"
    )
    fake_memory(monkeypatch, tmp_path, cgroup_limit=64 * 2**20)
    code, out, err = run_cli("sky", "convert", "random", tmp_path / "r.txt", "--n", "50000")
    assert (code, out) == (1, "")
    assert err == (
        "uvlab sky: error: a random sky of 50000 sources needs about 122.1 MiB, but only "
        "64.0 MiB of memory is available (cgroup limit); use a smaller n\n"
    )
    assert not (tmp_path / "r.txt").exists()


def test_sky_render_writes_a_picture_on_the_model_grid_in_jy_per_pixel(tmp_path, capsys):
    from astropy.io import fits

    out = tmp_path / "rg.fits"
    argv = ["sky", "render", "radio-galaxy", str(out), "--npix", "128", "--cell-arcsec", "2"]
    assert run([*argv, "--flux-jy", "2", "--ra", "150", "--dec", "30"]) == 0
    with fits.open(out) as hdul:
        h, data = hdul[0].header, hdul[0].data
    assert h["BUNIT"] == "Jy/pixel" and h["CRVAL1"] == 150.0 and data.shape[-2:] == (128, 128)
    assert data.sum() == pytest.approx(2.0, rel=0.01)  # the picture's 4′ fit in 4.3′
    assert "on the grid of 2 Jy" in capsys.readouterr().out
    with pytest.raises(SkyModelError, match="already exists"):
        run(argv)
    # the written FITS reads back as an absolute sky in the same place
    again = tmp_path / "again.fits"
    assert run(["sky", "render", str(out), str(again), "--npix", "128", "--cell-arcsec", "2",
                "--ra", "150", "--dec", "30"]) == 0  # fmt: skip
    with fits.open(again) as hdul:
        np.testing.assert_allclose(hdul[0].data, data, atol=1e-6 * data.max())


def test_sky_convert_to_wsclean_keeps_every_spectral_term(tmp_path, capsys):
    src = tmp_path / "in.txt"
    src.write_text(
        "Format = Name, Type, Ra, Dec, I, SpectralIndex, LogarithmicSI, ReferenceFrequency\n"
        "a,POINT,10:00:00,+30.00.00,1.0,[-0.5],false,1.4e9\n"
        "b,POINT,10:00:10,+30.01.00,2.0,[-0.7,0.05,-0.01],true,1.4e9\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.txt"
    assert run(["sky", "convert", str(src), str(out), "--format", "wsclean"]) == 0
    assert "(wsclean format)" in capsys.readouterr().out
    again = read_wsclean(out)
    assert again[0].flux(1.0e9)[0] == pytest.approx(1.0 + 0.5 * (1 - 1 / 1.4), rel=1e-15)
    assert again[1].spectral_terms == (-0.7, 0.05, -0.01) and again[1].log_si
    # and through the uvlab format, which holds the terms in its spectrum column
    uv = tmp_path / "uv.sky"
    assert run(["sky", "convert", str(out), str(uv)]) == 0
    assert [c.spectral_terms for c in read_sky(uv)] == [(-0.5,), (-0.7, 0.05, -0.01)]
