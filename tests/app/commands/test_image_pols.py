"""``uvlab image --pol``: each polarisation imaged on its own, WSClean's names.

A polarised point source off the phase centre, on a pixel, is simulated with
uvlab's simulator (no smearing, no feed rotation) once with linear feeds and
once with circular feeds. ``--pol iquv`` must give, at the source, the sky
model's I, Q, U and V; and each whole image must equal the oracle: a float64
direct DFT of the Stokes combination of the MS's own correlations, formed here
from the POLARIZATION table's CORR_TYPE with DESIGN §1's brightness matrix
inverted by hand (linear: I = (XX+YY)/2, Q = (XX−YY)/2, U = (XY+YX)/2,
V = −i(XY−YX)/2; circular: I = (RR+LL)/2, V = (RR−LL)/2, Q = (RL+LR)/2,
U = −i(RL−LR)/2), each weighted 1/Σ|c_k|²/w_k. The FITS files are read back
with astropy.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.support.cli import error_line, run_cli, write_sky
from tests.support.observations import SMALL_OBS
from tests.support.oracles import C_LIGHT, dft_image, pixel_radec
from uvlab.gpu.image_spec import ImageSpec

IQUV = (1.0, 0.3, -0.2, 0.1)
NPIX, CELL_ARCSEC = 64, 60.0
CELL = np.radians(CELL_ARCSEC / 3600)
DI, DJ = 5, -3  # the source's pixel offset: l = −DI·cell, m = DJ·cell
OBS = replace(SMALL_OBS, nchan=2)
IMAGE = ("--npix", NPIX, "--cell-arcsec", CELL_ARCSEC, "--eps", "1e-7", "--device", "cpu",
         "--weighting", "natural", "--wstack", "--no-png")  # fmt: skip
CODES = {"I": 1, "Q": 2, "U": 3, "V": 4, "XX": -5, "YY": -6, "RR": -1, "LL": -2}
#: casacore CORR_TYPE → name, and each product's coefficients on the correlations.
CORR = {5: "RR", 6: "RL", 7: "LR", 8: "LL", 9: "XX", 10: "XY", 11: "YX", 12: "YY"}
COMBINATION = {
    "linear": {"I": {"XX": 0.5, "YY": 0.5}, "Q": {"XX": 0.5, "YY": -0.5},
               "U": {"XY": 0.5, "YX": 0.5}, "V": {"XY": -0.5j, "YX": 0.5j},
               "XX": {"XX": 1.0}, "YY": {"YY": 1.0}},
    "circular": {"I": {"RR": 0.5, "LL": 0.5}, "V": {"RR": 0.5, "LL": -0.5},
                 "Q": {"RL": 0.5, "LR": 0.5}, "U": {"RL": -0.5j, "LR": 0.5j}},
}  # fmt: skip


def _simulate(folder: Path, feeds: str) -> Path:
    ra, dec = pixel_radec(OBS.ra_deg, OBS.dec_deg, CELL, DI, DJ)
    sky = write_sky(folder / "sky.txt", [("p", ra, dec, *IQUV)])
    path = folder / f"{feeds}.ms"
    code, _, err = run_cli(
        "simulate", "--array", OBS.layout, "--ra", OBS.ra_deg, "--dec", OBS.dec_deg,
        "--ha-start", OBS.ha_start_h, "--ha-stop", OBS.ha_stop_h, "--int-s", OBS.int_s,
        "--freq-hz", OBS.freq_hz, "--chan-width-hz", OBS.chan_width_hz, "--nchan", OBS.nchan,
        "--sky", sky, "--no-smearing", "--feeds", feeds, "--device", "cpu", "--out", path,
    )  # fmt: skip
    assert code == 0, err
    return path


@pytest.fixture(scope="module")
def linear(tmp_path_factory):
    return _simulate(tmp_path_factory.mktemp("pol"), "linear")


@pytest.fixture(scope="module")
def circular(tmp_path_factory):
    return _simulate(tmp_path_factory.mktemp("pol"), "circular")


def _oracle(ms: Path, feeds: str, product: str) -> np.ndarray:
    """The dirty image of ``product``: Σ w·S·e^{−2πi(ul+vm)} / Σ w over the MS's rows."""
    from casacore import tables

    with tables.table(str(ms), ack=False) as t:
        uvw, data, weight, flag = (t.getcol(c) for c in ("UVW", "DATA", "WEIGHT", "FLAG"))
    with tables.table(str(ms / "SPECTRAL_WINDOW"), ack=False) as s:
        freq = s.getcell("CHAN_FREQ", 0)
    with tables.table(str(ms / "POLARIZATION"), ack=False) as p:
        names = [CORR[int(c)] for c in p.getcell("CORR_TYPE", 0)]
    parts = COMBINATION[feeds][product]
    idx = [names.index(n) for n in parts]
    c = np.array(list(parts.values()), dtype=complex)
    vis = (data[..., idx].astype(np.complex128) * c).sum(axis=-1)  # (row, chan)
    w = 1.0 / (np.abs(c) ** 2 / weight[:, idx].astype(np.float64)).sum(axis=-1)
    w = np.repeat(w[:, None], freq.size, axis=1) * ~flag[..., idx].any(axis=-1)
    u, v, ww = (uvw[:, None, k] * freq / C_LIGHT for k in (0, 1, 2))
    keep = w > 0
    spec = ImageSpec(NPIX, CELL)
    return dft_image(u[keep], v[keep], w[keep] * vis[keep], spec, w=ww[keep]) / w[keep].sum()


def _fits(path):
    from astropy.io import fits

    with fits.open(path) as hdul:
        return np.asarray(hdul[0].data, dtype=np.float64).squeeze(), hdul[0].header.copy()


def _image(ms: Path, prefix: Path, *extra) -> str:
    code, out, err = run_cli("image", "--ms", ms, *IMAGE, *extra, "--out", prefix)
    assert code == 0, err
    return out


SOURCE = (NPIX // 2 + DJ, NPIX // 2 + DI)  # (row j, column i) of the source


@pytest.mark.parametrize("feeds", ["linear", "circular"])
def test_iquv_images_give_the_sky_models_stokes_parameters(request, tmp_path, feeds):
    ms = request.getfixturevalue(feeds)
    prefix = tmp_path / "p"
    _image(ms, prefix, "--pol", "iquv")
    for product, flux in zip("IQUV", IQUV):
        dirty, header = _fits(f"{prefix}-{product}-dirty.fits")
        psf, psf_header = _fits(f"{prefix}-{product}-psf.fits")
        want = _oracle(ms, feeds, product)
        assert np.abs(dirty - want).max() <= 1e-6 * IQUV[0], (feeds, product)
        assert want[SOURCE] == pytest.approx(flux, abs=1e-6)  # the sky (DATA is complex64)
        assert dirty[SOURCE] == pytest.approx(flux, abs=1e-6), (feeds, product)
        j, i = np.unravel_index(np.argmax(np.abs(dirty)), dirty.shape)
        assert (j, i) == SOURCE
        assert header["CTYPE4"] == "STOKES" and header["CRVAL4"] == CODES[product]
        assert psf_header["CRVAL4"] == CODES[product]
        assert psf.max() == pytest.approx(1.0, abs=1e-6)


def test_files_are_named_as_wsclean_names_them(linear, tmp_path):
    prefix = tmp_path / "n"
    _image(linear, prefix, "--pol", "IQUV")
    names = {p.name for p in tmp_path.iterdir()}
    want = {f"n-{s}-{kind}.fits" for s in "IQUV" for kind in ("dirty", "psf")}
    assert names == want | {f"n-{s}-timing.json" for s in "IQUV"}


def test_one_polarisation_has_no_tag_and_is_stokes(linear, tmp_path):
    _image(linear, tmp_path / "q", "--pol", "q")
    _image(linear, tmp_path / "s", "--stokes", "Q")
    assert {p.name for p in tmp_path.iterdir()} == {
        f"{x}-{kind}" for x in "qs" for kind in ("dirty.fits", "psf.fits", "timing.json")
    }
    q, header = _fits(tmp_path / "q-dirty.fits")
    s, _ = _fits(tmp_path / "s-dirty.fits")
    assert header["CRVAL4"] == CODES["Q"]
    np.testing.assert_array_equal(q, s)


def test_correlation_images(linear, tmp_path):
    prefix = tmp_path / "c"
    _image(linear, prefix, "--pol", "xx,yy")
    i, q = IQUV[:2]
    for product, flux in (("XX", i + q), ("YY", i - q)):
        dirty, header = _fits(f"{prefix}-{product}-dirty.fits")
        want = _oracle(linear, "linear", product)
        assert np.abs(dirty - want).max() <= 1e-6 * i
        assert dirty[SOURCE] == pytest.approx(flux, abs=1e-6)
        assert header["CRVAL4"] == CODES[product]


def test_clean_runs_on_each_polarisation(linear, tmp_path):
    prefix = tmp_path / "k"
    out = _image(linear, prefix, "--pol", "iquv", "--niter", 200, "--threshold-jy", 1e-3)
    for product, flux in zip("IQUV", IQUV):
        model, mheader = _fits(f"{prefix}-{product}-model.fits")
        residual, _ = _fits(f"{prefix}-{product}-residual.fits")
        _, iheader = _fits(f"{prefix}-{product}-image.fits")
        assert mheader["CRVAL4"] == iheader["CRVAL4"] == CODES[product]
        assert model.sum() == pytest.approx(flux, abs=2e-3), product
        assert np.abs(residual).max() <= 1e-3
        assert Path(f"{prefix}-{product}-sources.txt").is_file()
    assert sum(line.startswith("CLEAN:") for line in out.splitlines()) == 4


def _refused(*argv) -> str:
    code, out, err = run_cli("image", *argv)
    assert code == 2, (out, err)
    return error_line(err)


def test_a_product_the_correlations_cannot_give_is_refused(tmp_path):
    from tests.support.ms_factory import make_ms

    ms = make_ms(tmp_path / "xxyy.ms", np.random.default_rng(1), corr_types=(9, 12)).path
    line = _refused("--ms", ms, *IMAGE, "--pol", "iquv", "--out", tmp_path / "r")
    assert "--pol i,q,u,v" in line and "cannot form Stokes U" in line and "XX YY" in line
    assert not list(tmp_path.glob("r*"))


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (
            ("--pol", "iquv", "--channels-out", "2", "--join-polarizations"),
            "--join-polarizations: not yet supported without --join-channels",
        ),
        (("--pol", "iquv", "--stokes", "I"), "--pol and --stokes"),
        (("--pol", "iqx"), "neither Stokes letters"),
        (("--pol", "i,i"), "given twice"),
    ],
)
def test_unsupported_combinations_are_refused(circular, tmp_path, extra, words):
    line = _refused("--ms", circular, *IMAGE, *extra, "--out", tmp_path / "r")
    assert words in line
    assert not list(tmp_path.glob("r*"))


def test_a_correlation_of_the_other_feeds_is_refused(circular, tmp_path):
    line = _refused("--ms", circular, *IMAGE, "--pol", "xx,yy", "--out", tmp_path / "r")
    assert line.startswith("uvlab image: error: --pol xx,yy: ")
    assert "'XX'" in line and "RR RL LR LL" in line
    assert not list(tmp_path.glob("r*"))


def test_an_existing_file_of_any_polarisation_is_refused_before_reading(linear, tmp_path):
    (tmp_path / "e-V-psf.fits").write_text("kept")
    line = _refused("--ms", linear, *IMAGE, "--pol", "iquv", "--out", tmp_path / "e")
    assert "e-V-psf.fits" in line
    assert [p.name for p in tmp_path.iterdir()] == ["e-V-psf.fits"]


def test_a_sample_counts_only_where_all_its_correlations_are_unflagged(linear, tmp_path):
    """XY flagged on some rows, YY on others: U and V lose the first, I the second."""
    import shutil

    from casacore import tables

    ms = tmp_path / "flagged.ms"
    shutil.copytree(linear, ms)
    rng = np.random.default_rng(29)
    with tables.table(str(ms), readonly=False, ack=False) as t:
        flag = t.getcol("FLAG")
        names = [CORR[int(c)] for c in tables.table(str(ms / "POLARIZATION"), ack=False)
                 .getcell("CORR_TYPE", 0)]  # fmt: skip
        pick = rng.random(flag.shape[0])
        flag[pick < 0.3, :, names.index("XY")] = True
        flag[pick > 0.7, :, names.index("YY")] = True
        t.putcol("FLAG", flag)
    prefix = tmp_path / "f"
    out = _image(ms, prefix, "--pol", "iuv")
    nvis = [int(ln.split(" visibilities")[0].split()[-1]) for ln in out.splitlines()
            if " visibilities" in ln]  # fmt: skip
    for product in "IUV":
        dirty, _ = _fits(f"{prefix}-{product}-dirty.fits")
        want = _oracle(ms, "linear", product)
        assert np.abs(dirty - want).max() <= 1e-6 * IQUV[0], product
    used = {
        product: int((~flag[..., [names.index(n) for n in COMBINATION["linear"][product]]]
                      .any(axis=-1)).sum())
        for product in "IUV"
    }  # fmt: skip
    assert nvis == [used["I"], used["U"], used["V"]]
    assert used["I"] != used["U"] and min(used.values()) > 0.5 * flag.shape[0] * flag.shape[1]


def test_every_spectral_window_in_each_polarisation(tmp_path):
    """Two windows, all four correlations: I and V of both windows, each against the DFT."""
    from casacore import tables

    from tests.support.ms_factory import make_ms

    ms = make_ms(tmp_path / "two.ms", np.random.default_rng(3), spw_nchan=(2, 3)).path
    cell = 20.0
    code, _, err = run_cli("image", "--ms", ms, "--npix", NPIX, "--cell-arcsec", cell, "--eps",
                           "1e-7", "--device", "cpu", "--no-png", "--pol", "i,v",
                           "--out", tmp_path / "s")  # fmt: skip
    assert code == 0, err
    with tables.table(str(ms), ack=False) as t:
        rows = [{c: t.getcell(c, r) for c in ("UVW", "DATA", "FLAG", "WEIGHT", "DATA_DESC_ID",
                                              "FLAG_ROW", "ANTENNA1", "ANTENNA2")}
                for r in range(t.nrows())]  # fmt: skip
    with tables.table(str(ms / "SPECTRAL_WINDOW"), ack=False) as s:
        freqs = [s.getcell("CHAN_FREQ", k) for k in range(s.nrows())]
    with tables.table(str(ms / "POLARIZATION"), ack=False) as p:
        names = [CORR[int(c)] for c in p.getcell("CORR_TYPE", 0)]
    assert {int(r["DATA_DESC_ID"]) for r in rows} == {0, 1}
    for product in "IV":
        parts = COMBINATION["linear"][product]
        idx = [names.index(n) for n in parts]
        c = np.array(list(parts.values()), dtype=complex)
        u, v, wv, ws = [], [], [], []
        for r in rows:
            if r["ANTENNA1"] == r["ANTENNA2"] or r["FLAG_ROW"]:
                continue
            f = freqs[int(r["DATA_DESC_ID"])]  # DATA_DESCRIPTION k is window k here
            w = 1.0 / (np.abs(c) ** 2 / r["WEIGHT"][idx].astype(np.float64)).sum()
            keep = ~r["FLAG"][:, idx].any(axis=-1)
            vis = (r["DATA"][:, idx].astype(np.complex128) * c).sum(axis=-1)
            u.append(r["UVW"][0] * f[keep] / C_LIGHT)
            v.append(r["UVW"][1] * f[keep] / C_LIGHT)
            wv.append(w * vis[keep])
            ws.append(np.full(keep.sum(), w))
        ws = np.concatenate(ws)
        spec = ImageSpec(NPIX, np.radians(cell / 3600))
        want = dft_image(np.concatenate(u), np.concatenate(v), np.concatenate(wv), spec) / ws.sum()
        dirty, header = _fits(f"{tmp_path}/s-{product}-dirty.fits")
        assert header["CRVAL4"] == CODES[product]
        assert np.abs(dirty - want).max() <= 1e-6 * np.abs(want).max(), product
