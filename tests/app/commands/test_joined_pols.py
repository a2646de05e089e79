"""``uvlab image --pol LIST --join-polarizations --niter``: WSClean's joined-polarisation CLEAN.

Two point sources on pixels are simulated with uvlab's simulator (linear feeds, no
smearing, no feed rotation), each with known I, Q, U, V: a bright, weakly polarised one
and a strongly polarised one, once without noise and once with thermal noise (σ of each
image ≈ 0.01 Jy/beam, so the weak source's Q of 0.03 Jy is below Q's own noise peaks).
The noise each polarisation's image holds is the noisy MS's dirty image minus the
noiseless MS's (the float64 direct-DFT oracle of test_image_pols agrees with uvlab's
dirty images to 1e-6, there); each source's model must be its I, Q, U, V plus that
noise, to the stop level. The FITS files are read back with astropy.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.support.cli import error_line, run_cli, write_sky
from tests.support.observations import SMALL_OBS
from tests.support.oracles import pixel_radec

NPIX, CELL_ARCSEC = 64, 60.0
CELL = np.radians(CELL_ARCSEC / 3600)
OBS = replace(SMALL_OBS, nchan=2)
#: ((di, dj) pixel offset, (I, Q, U, V)): the weakly polarised source, the polarised one.
SOURCES = [((5, -3), (1.0, 0.03, -0.02, 0.015)), ((-9, 8), (0.4, 0.12, 0.08, 0.0))]
NOISE_JY = 0.55
#: The stop level (Jy/beam, on the search image √(I² + Q² + U² + V²)).
STOP = 0.05
IMAGE = ("--npix", NPIX, "--cell-arcsec", CELL_ARCSEC, "--eps", "1e-7", "--device", "cpu",
         "--weighting", "natural", "--wstack", "--no-png")  # fmt: skip
CLEAN = ("--niter", 1000, "--threshold-jy", STOP)


def _simulate(folder: Path, noise: bool) -> Path:
    comps = []
    for k, ((di, dj), iquv) in enumerate(SOURCES):
        ra, dec = pixel_radec(OBS.ra_deg, OBS.dec_deg, CELL, di, dj)
        comps.append((f"s{k}", ra, dec, *iquv))
    sky = write_sky(folder / "sky.txt", comps)
    path = folder / ("noisy.ms" if noise else "clean.ms")
    code, _, err = run_cli(
        "simulate", "--array", OBS.layout, "--ra", OBS.ra_deg, "--dec", OBS.dec_deg,
        "--ha-start", OBS.ha_start_h, "--ha-stop", OBS.ha_stop_h, "--int-s", OBS.int_s,
        "--freq-hz", OBS.freq_hz, "--chan-width-hz", OBS.chan_width_hz, "--nchan", OBS.nchan,
        "--sky", sky, "--no-smearing", "--feeds", "linear", "--device", "cpu", "--out", path,
        *(("--noise-jy", NOISE_JY, "--seed", 29) if noise else ()),
    )  # fmt: skip
    assert code == 0, err
    return path


def _fits(path):
    from astropy.io import fits

    with fits.open(path) as hdul:
        return np.asarray(hdul[0].data, dtype=np.float64).squeeze(), hdul[0].header.copy()


def _image(ms: Path, prefix: Path, *extra) -> str:
    code, out, err = run_cli("image", "--ms", ms, *IMAGE, *extra, "--out", prefix)
    assert code == 0, err
    return out


def _stack(prefix: Path, kind: str, pols: str = "IQUV") -> np.ndarray:
    return np.stack([_fits(f"{prefix}-{p}-{kind}.fits")[0] for p in pols])


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    """(noisy MS, the noise images (4, N, N) of I, Q, U, V)."""
    folder = tmp_path_factory.mktemp("joinpol")
    noisy, clean = _simulate(folder, True), _simulate(folder, False)
    _image(noisy, folder / "dn", "--pol", "iquv")
    _image(clean, folder / "dc", "--pol", "iquv")
    return noisy, _stack(folder / "dn", "dirty") - _stack(folder / "dc", "dirty")


def _pixel(di, dj):
    return NPIX // 2 + dj, NPIX // 2 + di


def _box(stack, di, dj):
    """Sums over the 3×3 pixels around a source (noise moves a few components by one)."""
    j, i = _pixel(di, dj)
    return stack[..., j - 1 : j + 2, i - 1 : i + 2].sum(axis=(-1, -2))


def _support(image) -> set:
    return set(zip(*(a.tolist() for a in np.nonzero(image)), strict=True))


@pytest.mark.parametrize("deconvolver", ["hogbom", "cotton-schwab"])
def test_joined_clean_recovers_every_sources_iquv_at_the_same_pixels(scene, tmp_path,
                                                                     deconvolver):  # fmt: skip
    ms, noise = scene
    prefix = tmp_path / "j"
    out = _image(ms, prefix, "--pol", "iquv", "--join-polarizations", *CLEAN,
                 "--deconvolver", deconvolver, "--mgain", 0.8)  # fmt: skip
    model, residual = _stack(prefix, "model"), _stack(prefix, "residual")
    for (di, dj), iquv in SOURCES:
        # after the stop each polarisation's residual is ≤ STOP everywhere (the search
        # image bounds it): that much of a source may stay; σ more for noise-shifted pixels
        want = np.asarray(iquv) + noise[:, _pixel(di, dj)[0], _pixel(di, dj)[1]]
        np.testing.assert_allclose(_box(model, di, dj), want, rtol=0, atol=STOP + 0.01)
    assert np.sqrt((residual**2).sum(axis=0)).max() <= STOP * (1 + 1e-6)
    supports = [_support(m) for m in model]  # every component in all four, own values
    assert supports[0] and all(s == supports[0] for s in supports)
    cleans = [ln for ln in out.splitlines() if ln.startswith("CLEAN:")]
    assert len(cleans) == 4 and len({ln.split(",")[0] for ln in cleans}) == 1  # one count
    for p in "IQUV":
        _, header = _fits(f"{prefix}-{p}-image.fits")
        assert header["BMAJ"] > 0 and Path(f"{prefix}-{p}-sources.txt").is_file()
        assert any("join_polarizations" in str(h) and "I,Q,U,V" in str(h)
                   for h in header["HISTORY"])  # fmt: skip


def test_joined_multiscale_recovers_every_sources_iquv_at_the_same_pixels(scene, tmp_path):
    """``--join-polarizations --multiscale``: scales and peaks on the root sum of squares of
    the scale-convolved residuals, every component in all four with its own values."""
    ms, noise = scene
    prefix = tmp_path / "m"
    _image(ms, prefix, "--pol", "iquv", "--join-polarizations", "--multiscale", *CLEAN,
           "--mgain", 0.8)  # fmt: skip
    model, residual = _stack(prefix, "model"), _stack(prefix, "residual")
    for (di, dj), iquv in SOURCES:  # within 3 pixels: a scale component's spread
        j, i = _pixel(di, dj)
        got = model[:, j - 3 : j + 4, i - 3 : i + 4].sum(axis=(-1, -2))
        want = np.asarray(iquv) + noise[:, j, i]
        np.testing.assert_allclose(got, want, rtol=0, atol=STOP + 0.01)
    assert np.sqrt((residual**2).sum(axis=0)).max() <= STOP * (1 + 1e-6)
    supports = [_support(m) for m in model]
    assert supports[0] and all(s == supports[0] for s in supports)
    assert all(Path(f"{prefix}-{p}-image.fits").is_file() for p in "IQUV")


def test_the_weak_q_is_found_at_i_where_the_separate_run_misses_it(scene, tmp_path):
    ms, noise = scene
    (di, dj), iquv = SOURCES[0]
    q_true, q_noise = iquv[1], noise[1][_pixel(di, dj)]
    assert q_true < 4 * noise[1].std()  # below Q's own noise peaks
    _image(ms, tmp_path / "s", "--pol", "iquv", *CLEAN)
    _image(ms, tmp_path / "j", "--pol", "iquv", "--join-polarizations", *CLEAN)
    alone = _fits(tmp_path / "s-Q-model.fits")[0]
    assert _support(alone) and _box(alone, di, dj) == 0.0  # Q alone misses the weak source
    joined = _fits(tmp_path / "j-Q-model.fits")[0]
    assert abs(_box(joined, di, dj) - (q_true + q_noise)) <= 0.3 * q_true
    assert _support(joined) <= _support(_fits(tmp_path / "j-I-model.fits")[0])


def test_without_clean_the_files_are_the_unjoined_runs(scene, tmp_path):
    ms, _ = scene
    _image(ms, tmp_path / "a", "--pol", "xx,yy")
    _image(ms, tmp_path / "b", "--pol", "xx,yy", "--join-polarizations")
    for p in ("XX", "YY"):
        for kind in ("dirty", "psf"):
            a, _ = _fits(tmp_path / f"a-{p}-{kind}.fits")
            b, _ = _fits(tmp_path / f"b-{p}-{kind}.fits")
            np.testing.assert_array_equal(a, b)


def test_two_correlations_joined_find_i_on_their_normalised_sum(scene, tmp_path):
    """XX and YY: each gets its own I ± Q; the search image √((XX² + YY²)/2) reads ~I."""
    ms, _ = scene
    prefix = tmp_path / "c"
    _image(ms, prefix, "--pol", "xx,yy", "--join-polarizations", *CLEAN)
    model = _stack(prefix, "model", ("XX", "YY"))
    for (di, dj), (i, q, _, _) in SOURCES:
        np.testing.assert_allclose(_box(model, di, dj), [i + q, i - q], rtol=0, atol=STOP + 0.03)
    assert _support(model[0]) == _support(model[1])


def _refused(*argv) -> str:
    code, out, err = run_cli("image", *argv)
    assert code == 2, (out, err)
    return error_line(err)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (("--join-polarizations",), "--join-polarizations needs --pol"),
        (("--pol", "iqu", "--join-polarizations"), "two or four polarisations, not 3"),
        (("--pol", "q", "--join-polarizations"), "two or four polarisations, not 1"),
        (("--pol", "iquv", "--join-polarizations", "--channels-out", 2),
         "--join-polarizations: not yet supported without --join-channels"),
    ],
)  # fmt: skip
def test_unsupported_combinations_are_refused(scene, tmp_path, extra, words):
    ms, _ = scene
    line = _refused("--ms", ms, *IMAGE, *CLEAN, *extra, "--out", tmp_path / "r")
    assert line.startswith("uvlab image: error: ") and words in line
    assert not list(tmp_path.glob("r*"))


def test_geometries_chosen_apart_are_refused_before_clean(scene, tmp_path):
    """U and V lose the longest baselines (XY flagged there): their cells come out finer."""
    import shutil

    from casacore import tables

    ms, _ = scene
    flagged = tmp_path / "f.ms"
    shutil.copytree(ms, flagged)
    with tables.table(str(flagged), readonly=False, ack=False) as t:
        flag, uvw = t.getcol("FLAG"), t.getcol("UVW")
        names = tables.table(str(flagged / "POLARIZATION"), ack=False).getcell("CORR_TYPE", 0)
        length = np.hypot(uvw[:, 0], uvw[:, 1])
        flag[length > 0.8 * length.max(), :, list(names).index(10)] = True  # XY
        t.putcol("FLAG", flag)
    code, out, err = run_cli("image", "--ms", flagged, "--pol", "iu", "--join-polarizations",
                             "--niter", 10, "--device", "cpu", "--no-png",
                             "--out", tmp_path / "g")  # fmt: skip
    assert code == 2, (out, err)
    line = err.strip().splitlines()[-1]
    assert line.startswith("uvlab image: error: --join-polarizations: U's image is ")
    assert "give --npix and --cell-arcsec" in line
    assert not list(tmp_path.glob("g*"))
