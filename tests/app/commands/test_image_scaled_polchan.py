"""``uvlab image --pol iquv --channels-out N`` over a Dask cluster: each product's cube.

Oracle: the one-process run of the same MS (no row-chunk options), which makes each
product's cube in a run of its own (tested against the direct DFT, tclean and the joined
loops in test_image_pols.py, test_image_joined.py and test_image_joined_cube.py). Every
FITS file of every (channel, product) and of every product's MFS set must have the same
name and agree to 1e-9 of its peak beyond the float32 rounding of the files, with the same
CLEAN iterations and component lists.
"""

from __future__ import annotations

import numpy as np
import pytest
from astropy.io import fits

from tests.support.cli import error_line, one_process_and_chunked, run_cli
from tests.support.ms_factory import polarised_ms

GEOMETRY = ["--npix", "32", "--cell-arcsec", "60", "--no-png", "--device", "cpu"]
IQUV = "IQUV"
TAGS = ("0000", "0001", "MFS")
CHUNKS = ["--chunk-rows", "40"]  # uneven: 90 rows in three chunks (40, 40, 10)
CLEAN = ("dirty", "psf", "model", "residual", "image")


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    path = tmp_path_factory.mktemp("scaled_polchan") / "obs.ms"
    return polarised_ms(path, 7)


def both(ms, folder, cluster, *extra):
    """(stdout of the one-process run, of the chunked run on the package's two-worker
    ``cluster``, its stderr), both of ``--pol iquv --channels-out 2``."""
    args = ["image", "--ms", ms, *GEOMETRY, "--pol", "iquv", "--channels-out", "2", *extra]
    return one_process_and_chunked(args, folder, cluster, CHUNKS)


def assert_same_files(folder, kinds):
    """Every (channel or MFS, product, kind) file of the chunked run, WSClean's name, as the
    one-process run's; and no other file of either."""
    names = {p.name.removeprefix("one") for p in folder.glob("one*")}
    assert names == {p.name.removeprefix("many") for p in folder.glob("many*")}
    want_names = {f"-{t}-{p}-{k}.fits" for t in TAGS for p in IQUV for k in kinds}
    assert {n for n in names if n.endswith(".fits")} == want_names
    for name in sorted(want_names):
        want = fits.getdata(folder / f"one{name}")
        got = fits.getdata(folder / f"many{name}")
        head = fits.getheader(folder / f"many{name}")
        assert head["CRVAL4"] == fits.getheader(folder / f"one{name}")["CRVAL4"]  # Stokes
        assert np.abs(want).max() > 0, name
        np.testing.assert_allclose(got, want, rtol=2.0**-23, atol=1e-9 * np.abs(want).max(),
                                   err_msg=name)  # fmt: skip


def channel_cleans(out: str) -> list[str]:
    """Each output channel's CLEAN, in the order written: iterations and stop."""
    return [line.split("; CLEAN ")[1].split(", residual")[0] for line in out.splitlines()
            if "; CLEAN " in line]  # fmt: skip


def _number(field: str) -> float | None:
    """A component list's field as a number (a spectral term without its ``[``/``]``);
    None for text or an empty field."""
    try:
        return float(field.strip("[]"))
    except ValueError:
        return None


def assert_same_sources(folder):
    """Each product's component list: the same components at the same positions, every
    flux and spectral term to rounding."""
    for p in IQUV:
        one = (folder / f"one-{p}-sources.txt").read_text().splitlines()
        many = (folder / f"many-{p}-sources.txt").read_text().splitlines()
        assert len(many) == len(one) > 2 and many[:2] == one[:2]
        for a, b in zip(many[2:], one[2:], strict=True):
            a, b = a.split(","), b.split(",")
            assert len(a) == len(b) and a[:4] == b[:4]  # name, type, RA, Dec
            for x, y in zip(a[4:], b[4:], strict=True):  # fluxes, terms, ν0 to rounding
                if _number(y) is None:
                    assert x == y
                else:
                    assert _number(x) == pytest.approx(_number(y), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(
    ("weighting", "extra"),
    [
        # in `make test-all` only: the grids path with several products is the default
        # run's in test_image_scaled_pols.py
        pytest.param("briggs", ["--niter", "20", "--mgain", "0.7", "--algorithm", "conv"],
                     marks=pytest.mark.slow),
        ("uniform", ["--niter", "20", "--deconvolver", "cotton-schwab", "--mgain", "0.6",
                     "--algorithm", "ducc"]),
    ],
    ids=["hogbom-grids", "cs-nufft"],
)  # fmt: skip
def test_each_product_cube_is_the_one_process_cube(ms, cluster, tmp_path, weighting, extra):
    """Each (channel, product) imaged with its own density and PSF and CLEANed on its own;
    each product's MFS set its image of all channels and its channels' weighted means."""
    out_one, out, _ = both(ms, tmp_path, cluster, "--weighting", weighting, *extra)
    assert [f"polarisation {p}:" in out for p in IQUV] == [True] * 4
    assert sum("channel 0001: input channels 2-3" in line for line in out.splitlines()) == 4
    assert_same_files(tmp_path, CLEAN)
    cleans = channel_cleans(out)
    assert cleans == channel_cleans(out_one) and len(cleans) == 8
    assert_same_sources(tmp_path)
    # an output channel holds half the input channels: its image is not the MFS image
    assert not np.allclose(fits.getdata(tmp_path / "many-0000-Q-dirty.fits"),
                           fits.getdata(tmp_path / "many-MFS-Q-dirty.fits"))  # fmt: skip


@pytest.mark.slow  # in `make test-all`: the default run joins channels in the next test
def test_joined_channels_each_product_as_one_process(ms, cluster, tmp_path):
    """--join-channels: each product's channels weighted by that product's density of all
    its channels (MF weighting) and CLEANed jointly, with the spectral fit."""
    extra = ("--weighting", "natural", "--join-channels", "--niter", "25", "--mgain", "0.6",
             "--deconvolver", "cotton-schwab", "--fit-spectral-pol", "2")  # fmt: skip
    out_one, out, _ = both(ms, tmp_path, cluster, *extra)
    assert_same_files(tmp_path, CLEAN)
    cleans = channel_cleans(out)
    assert cleans == channel_cleans(out_one) and len(cleans) == 8
    assert [cleans[2 * k] == cleans[2 * k + 1] for k in range(4)] == [True] * 4  # joined
    assert_same_sources(tmp_path)
    for p in IQUV:  # joined: a product's channels' components at the same pixels
        m0, m1 = (fits.getdata(tmp_path / f"many-{t}-{p}-model.fits") != 0 for t in TAGS[:2])
        assert m0.any() and (m0 == m1).all()
        for t in TAGS:  # natural: imaging weights = data weights, the same frequency cards
            want = fits.getheader(tmp_path / f"one-{t}-{p}-image.fits")
            got = fits.getheader(tmp_path / f"many-{t}-{p}-image.fits")
            for card in ("CRVAL3", "CDELT3", "BMAJ", "BMIN"):
                assert got[card] == pytest.approx(want[card], rel=1e-9), (t, p, card)


def test_both_joins_clean_every_plane_together_as_one_process(ms, cluster, tmp_path):
    """--join-channels --join-polarizations: the 2·4 planes CLEANed together, each plane's
    PSF of side 2N and major cycles over the cluster, MF weights per product."""
    extra = ("--weighting", "briggs", "--join-channels", "--join-polarizations", "--niter",
             "25", "--mgain", "0.6", "--deconvolver", "cotton-schwab")  # fmt: skip
    out_one, out, _ = both(ms, tmp_path, cluster, *extra)
    assert_same_files(tmp_path, CLEAN)
    cleans = channel_cleans(out)
    assert cleans == channel_cleans(out_one) and len(set(cleans)) == 1 and len(cleans) == 8
    assert_same_sources(tmp_path)
    models = [fits.getdata(tmp_path / f"many-{t}-{p}-model.fits") != 0
              for t in TAGS[:2] for p in IQUV]  # fmt: skip
    assert models[0].any() and all((m == models[0]).all() for m in models)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (("--channels-out", "2", "--join-polarizations", "--niter", "5"),
         "--join-polarizations: not yet supported without --join-channels"),
        (("--channels-out", "9"), "--channels-out: 9 output channels, but only 4 channels"),
    ],
    ids=["join-pols-without-join-channels", "more-channels-than-selected"],
)  # fmt: skip
def test_what_one_process_refuses_is_refused_in_chunks_too(ms, tmp_path, extra, words):
    """Exit 2 with one line, as in one process, before any worker starts or anything is
    written: --join-polarizations of a cube without --join-channels; N above the channels."""
    code, out, err = run_cli("image", "--ms", ms, *GEOMETRY, "--pol", "iquv", *extra,
                             "--workers", "2", *CHUNKS, "--out", tmp_path / "r")  # fmt: skip
    assert code == 2, (out, err)
    line = error_line(err)
    assert line.startswith("uvlab image: error: ") and words in line
    assert "Dask cluster" not in err
    assert not list(tmp_path.glob("r*"))
