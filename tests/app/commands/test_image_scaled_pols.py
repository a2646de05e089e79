"""``uvlab image --pol iquv`` over a Dask cluster: every product from one read of each chunk.

Oracle: the one-process ``--pol iquv`` run of the same MS (each product imaged and
CLEANed on its own, or jointly with ``--join-polarizations``; tested against the direct
DFT, tclean and an independent joined loop in test_image_pols.py and
test_joined_pols.py). Every FITS file of every product must agree to 1e-9 of its peak
beyond the float32 rounding of the files, with the same CLEAN iterations.
"""

from __future__ import annotations

import numpy as np
import pytest
from astropy.io import fits

from tests.support.cli import one_process_and_chunked
from tests.support.ms_factory import polarised_ms

GEOMETRY = ["--npix", "64", "--cell-arcsec", "30", "--no-png", "--device", "cpu"]
IQUV = "IQUV"
CHUNKS = ["--chunk-rows", "40"]  # uneven: 90 rows in three chunks (40, 40, 10)


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    path = tmp_path_factory.mktemp("scaled_pols") / "obs.ms"
    return polarised_ms(path, 5)


def assert_same_files(folder, kinds, pols=IQUV):
    for p in pols:
        for kind in kinds:
            want = fits.getdata(folder / f"one-{p}-{kind}.fits")
            got = fits.getdata(folder / f"many-{p}-{kind}.fits")
            assert (
                fits.getheader(folder / f"many-{p}-{kind}.fits")["CRVAL4"]
                == (fits.getheader(folder / f"one-{p}-{kind}.fits")["CRVAL4"])
            )  # the product's Stokes code
            np.testing.assert_allclose(got, want, rtol=2.0**-23, atol=1e-9 * np.abs(want).max(),
                                       err_msg=f"{p}-{kind}")  # fmt: skip


def both(ms, folder, cluster, *extra):
    """(stdout of the one-process run, of the chunked run on the package's two-worker
    ``cluster``, its stderr)."""
    args = ["image", "--ms", ms, *GEOMETRY, "--pol", "iquv", *extra]
    return one_process_and_chunked(args, folder, cluster, CHUNKS)


def clean_lines(out: str) -> list[str]:
    """Each product's CLEAN line: iterations, cycles, stop."""
    return [line.split(";")[0] for line in out.splitlines() if " iterations" in line]


@pytest.mark.parametrize(
    ("weighting", "deconvolver", "algorithm"),
    [("briggs", "hogbom", "conv"), ("natural", "cotton-schwab", "ducc")],
)  # conv sums a grid per worker, ducc a NUFFT per worker (CLEAN holds the data)
def test_each_product_images_and_cleans_as_one_process(ms, cluster, tmp_path, weighting,
                                                       deconvolver, algorithm):  # fmt: skip
    clean = ("--niter", "30", "--mgain", "0.7", "--deconvolver", deconvolver)
    out_one, out, err = both(ms, tmp_path, cluster, "--weighting", weighting,
                             "--algorithm", algorithm, *clean)  # fmt: skip
    assert [f"polarisation {p}:" in out for p in IQUV] == [True] * 4
    # the same iterations and stop for every product (the one-process line says it its way)
    iterations = [line.split("CLEAN: ")[1].split(" (")[0] for line in out_one.splitlines()
                  if line.startswith("CLEAN: ")]  # fmt: skip
    assert len(iterations) == 4
    assert [line.split(": ")[1].split(" in ")[0] for line in clean_lines(out)] == iterations
    assert "CLEAN keeps the selection's data on the workers" in err
    assert_same_files(tmp_path, ("dirty", "psf", "model", "residual", "image"))
    for p in IQUV:  # the same components, each flux to rounding
        one = [r.split(",") for r in (tmp_path / f"one-{p}-sources.txt").read_text().splitlines()]
        many = [r.split(",") for r in (tmp_path / f"many-{p}-sources.txt").read_text().splitlines()]
        assert len(many) == len(one) > 2 and many[:2] == one[:2]
        for a, b in zip(many[2:], one[2:], strict=True):
            assert a[:4] + a[5:] == b[:4] + b[5:]
            assert float(a[4]) == pytest.approx(float(b[4]), rel=1e-9, abs=1e-12)


def test_joined_polarisations_clean_as_one_process(ms, cluster, tmp_path):
    """--join-polarizations: peaks on the products' root sum of squares, every product's
    components at the same pixels, each product's PSF and major cycles over the cluster."""
    clean = ("--niter", "25", "--deconvolver", "cotton-schwab", "--mgain", "0.6")
    out_one, out, _ = both(ms, tmp_path, cluster, "--weighting", "uniform",
                           "--join-polarizations", *clean)  # fmt: skip
    assert_same_files(tmp_path, ("dirty", "psf", "model", "residual", "image"))
    iterations = {line.split("CLEAN: ")[1].split(" (")[0] for line in out_one.splitlines()
                  if line.startswith("CLEAN: ")}  # fmt: skip
    assert {line.split(": ")[1].split(" in ")[0] for line in clean_lines(out)} == iterations
    models = [fits.getdata(tmp_path / f"many-{p}-model.fits") != 0 for p in IQUV]
    assert models[0].any() and all((m == models[0]).all() for m in models)
    lines = clean_lines(out)
    assert len(lines) == 4 and len(set(lines)) == 1  # one joined CLEAN
