"""Every bad value of issue 25 is refused in one line naming the flag or the file.

Each row runs the CLI in this process (:func:`tests.support.cli.run_cli`) and
checks the exit status (2: a bad option value, refused by argparse before
anything is read; 1: a file whose contents cannot be used, named with its line
where it has one), exactly one line on stderr holding the expected text, and
that nothing changed: every input file and the MeasurementSet hash the same,
and no output appeared. Every refusal comes before any imaging or prediction.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from tests.support.cli import error_line, run_cli
from tests.support.ms_factory import tree_digest

SKY = "# uvlab sky model v1\n"
WSCLEAN = "Format = Name, Type, Ra, Dec, I, SpectralIndex, LogarithmicSI, ReferenceFrequency\n"
SIM = ["simulate", "--array", "kat-7", "--ra", "10", "--dec", "-30", "--sky", "point",
       "--out", "{new}.ms"]  # fmt: skip
SIM_AT = ["simulate", "--array", "kat-7", "--ra", "10", "--dec", "-30", "--out", "{new}.ms"]
IMAGE = ["image", "--ms", "{ms}", "--device", "cpu", "--out", "{new}"]
PREDICT = ["predict", "--ms", "{ms}", "--device", "cpu", "--sky", "point"]
SESSION = {"format": "uvlab session", "version": 2,
           "observation": {"layout": "kat-7", "ra_deg": 10.0, "dec_deg": -30.0}}  # fmt: skip

#: (argv, exit status, text the one error line must contain)
CASES = [
    # option values: usage errors naming the flag
    ([*IMAGE, "--cell-arcsec", "0"], 2, "argument --cell-arcsec: expected a number > 0 arcsec"),
    ([*IMAGE, "--cell-arcsec", "nan"], 2, "argument --cell-arcsec: expected a finite number"),
    ([*IMAGE, "--support", "0"], 2, "argument --support: expected a whole number ≥ 1 cells"),
    ([*IMAGE, "--support", "100000"], 2, "argument --support: expected a whole number ≤ 32 cells"),
    ([*IMAGE, "--eps", "0"], 2, "argument --eps: expected a number > 0, got '0'"),
    ([*IMAGE, "--robust", "nan"], 2, "argument --robust: expected a finite number, got 'nan'"),
    ([*IMAGE, "--robust", "3"], 2, "argument --robust: expected a number ≤ 2, got '3'"),
    ([*IMAGE, "--size", "2", "2"], 2, "--size: an image of 2 pixels is too small"),
    ([*IMAGE, "--npix", "4"], 2, "--npix: an image of 4 pixels is too small"),
    ([*IMAGE, "--npix", "32", "--support", "32"], 2, "--npix: an image of 32 pixels is too small"),
    ([*IMAGE, "--niter", "1e20"], 2, "argument --niter: expected a whole number ≤ 1e+08"),
    ([*IMAGE, "--taper-arcsec", "-1"], 2, "argument --taper-arcsec"),
    ([*IMAGE, "--niter", "5", "--multiscale-scales", "0,a"], 2,
     "argument --multiscale-scales: expected pixel sizes separated by commas"),
    ([*IMAGE, "--niter", "5", "--multiscale", "--multiscale-scales", "0,-4"], 2,
     "--multiscale-scales must be pixel sizes ≥ 0"),
    ([*IMAGE, "--niter", "5", "--multiscale", "--multiscale-scale-bias", "0"], 2,
     "--multiscale-scale-bias must be in (0, 1]"),
    ([*IMAGE, "--niter", "5", "--multiscale", "--multiscale-small-scale-bias", "2"], 2,
     "--multiscale-small-scale-bias must be in [-1, 1]"),
    ([*IMAGE, "--scale", "1e300deg"], 2, "argument --scale: '1e300deg': the angle must be > 0"),
    (["compare", "--ms", "{ms}", "--eps", "0", "--out", "{new}"], 2, "argument --eps"),
    ([*SIM[:6], "91", *SIM[7:]], 2, "argument --dec: expected a number ≤ 90 deg, got '91'"),
    ([*SIM, "--date", "2025-02-30"], 2, "argument --date: '2025-02-30' is not a valid UTC date"),
    ([*SIM, "--start", "2025-13-01T00:00"], 2, "argument --start: '2025-13-01T00:00'"),
    ([*SIM, "--chan-width-hz", "0"], 2, "argument --chan-width-hz: expected a number > 0"),
    ([*SIM, "--chan-width-hz", "-1"], 2, "argument --chan-width-hz: expected a number > 0"),
    ([*SIM, "--gain-amp-rms", "1e300"], 2, "argument --gain-amp-rms: expected a number ≤ 10"),
    ([*SIM, "--noise-jy", "1e300"], 2, "argument --noise-jy: expected a number ≤ 1e+10"),
    ([*SIM, "--image-sky", "picture:ring", "--image-sky-width-arcmin", "1e300"], 2,
     "argument --image-sky-width-arcmin"),
    ([*PREDICT, "--gain-amp-rms", "1e300"], 2, "argument --gain-amp-rms"),
    ([*PREDICT, "--sefd-jy", "1e300"], 2, "argument --sefd-jy: expected a number ≤ 1e+10 Jy"),
    # sky files past the physical caps: the file and the line
    ([*SIM_AT, "--sky", "{flux.txt}"], 1, "flux.txt, line 2: I 1e+308 is beyond the"),
    ([*SIM_AT, "--sky", "{terms.txt}"], 1, "terms.txt, line 2: spectral term 1e+300 is beyond"),
    ([*SIM_AT, "--sky", "{wide.txt}"], 1, "wide.txt, line 2: major axis 1e+300 is beyond"),
    ([*PREDICT[:-2], "--sky", "{flux.txt}"], 1, "flux.txt, line 2: I 1e+308"),
    ([*SIM_AT, "--sky", "{fifo.txt}"], 1, "fifo.txt: not a regular file (a FIFO"),
    (["sky", "show", "{fifo.txt}"], 1, "fifo.txt: not a regular file"),
    # image skies: FITS headers and pictures
    ([*SIM_AT, "--sky", "{px90.fits}"], 1, "px90.fits: pixels of 90° are beyond the"),
    ([*SIM_AT, "--sky", "{nan.fits}"], 1, "nan.fits: CDELT1 = 'NAN' is not a finite number"),
    ([*SIM_AT, "--sky", "{singular.fits}"], 1, "singular.fits: no usable WCS: the pixel scale"),
    ([*SIM_AT, "--sky", "{fifo.fits}"], 1, "fifo.fits: not a regular file"),
    ([*SIM_AT, "--sky", "{bomb.png}", "--image-sky-width-arcmin", "10"], 1,
     "bomb.png: too many pixels (a decompression bomb?)"),
    ([*SIM_AT, "--sky", "{bomb.png}"], 1, "bomb.png: a picture needs its angular width "
     "(--image-sky-width-arcmin)"),
    # beam cubes
    ([*SIM, "--primary-beam", "{zero.fits}"], 1, "zero.fits: the beam is zero everywhere"),
    ([*SIM, "--primary-beam", "{pixel.fits}"], 1, "pixel.fits: a beam needs at least 2 pixels"),
    ([*SIM, "--primary-beam", "{khz.fits}"], 1, "khz.fits: the beam's planes cover 1000–2000 Hz"),
    ([*PREDICT, "--primary-beam", "{khz.fits}"], 1, "khz.fits: the beam's planes cover"),
    ([*SIM, "--primary-beam", "{nanbeam.fits}"], 1, "nanbeam.fits: CDELT1 = 'NAN' is not a"),
    # sessions
    (["gui", "--session", "{session.json}"], 1,
     "session.json: image_sky: unknown key 'path' (expected source, width_arcmin, flux_jy)"),
    (["demo", "--scene", "{session.json}", "--out", "{new}"], 1,
     "session.json: image_sky: unknown key 'path'"),
    (["gui", "--session", "{component.json}"], 1, "component.json: sky: component 0: unknown key"),
]  # fmt: skip


def _wcs_image(path: Path, cdelt: float, nan_cdelt1: bool = False) -> None:
    from astropy.io import fits

    hdu = fits.PrimaryHDU(np.ones((8, 8)))
    cards = dict(CTYPE1="RA---SIN", CTYPE2="DEC--SIN", CRVAL1=10.0, CRVAL2=-30.0, CRPIX1=4.0,
                 CRPIX2=4.0, CDELT1=-cdelt, CDELT2=cdelt, BUNIT="Jy/pixel")  # fmt: skip
    hdu.header.update(cards)
    hdu.writeto(path)
    if nan_cdelt1:
        _nan_cdelt1(path)


def _nan_cdelt1(path: Path) -> None:
    """Replace the CDELT1 card by ``CDELT1 = 'NAN'`` (astropy would not write it)."""
    raw = path.read_bytes()
    at = raw.index(b"CDELT1  =")
    path.write_bytes(raw[:at] + b"CDELT1  = 'NAN'".ljust(80) + raw[at + 80 :])


def _bomb_png(path: Path, side: int = 20000) -> None:
    """A PNG header of side² pixels (over Pillow's decompression-bomb limit), no image data."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b""))


def _beam(path: Path, data, freq_axis, nan_cdelt1: bool = False) -> None:
    from uvlab.app.instrument.beam_cube import write_beam_cube

    n = data.shape[-1]
    axis = (-0.005 * (n - 1), 0.01, n)
    write_beam_cube(path, data, axis, axis, freq_axis)
    if nan_cdelt1:
        _nan_cdelt1(path)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """The files of the battery, and a small MS, in one folder: name → path."""
    d = tmp_path_factory.mktemp("bad-values")
    code, _, err = run_cli("simulate", "--array", "kat-7", "--ra", 10, "--dec", -30,
                           "--ha-start", -0.2, "--ha-stop", 0.2, "--int-s", 600,
                           "--sky", "point", "--device", "cpu", "--out", d / "t.ms")  # fmt: skip
    assert code == 0, err
    (d / "flux.txt").write_text(SKY + "a point 10 -30 1e308 0 0 0 0 1.4e9 0 0 0\n")
    (d / "wide.txt").write_text(SKY + "a gaussian 10 -30 1 0 0 0 0 1.4e9 1e300 1 0\n")
    (d / "terms.txt").write_text(WSCLEAN + "a,POINT,00:40:00,-30.00.00,1,[1e300,2],true,1.4e9\n")
    os.mkfifo(d / "fifo.txt")
    os.mkfifo(d / "fifo.fits")
    _wcs_image(d / "px90.fits", 90.0)
    _wcs_image(d / "nan.fits", 1e-3, nan_cdelt1=True)
    _wcs_image(d / "singular.fits", 0.0)
    _bomb_png(d / "bomb.png")
    ones = np.ones((2, 5, 5))
    _beam(d / "zero.fits", np.zeros((1, 5, 5)), (1.4e9, 1e6, 1))
    _beam(d / "pixel.fits", np.ones((1, 1, 1)), (1.4e9, 1e6, 1))
    _beam(d / "khz.fits", ones, (1e3, 1e3, 2))
    _beam(d / "nanbeam.fits", ones, (1.3e9, 2e8, 2), nan_cdelt1=True)
    (d / "session.json").write_text(json.dumps({**SESSION, "image_sky": {"path": "x.png"}}))
    comp = {"name": "a", "kind": "point", "ra": 10, "dec_deg": -30, "stokes": [1, 0, 0, 0],
            "ref_freq_hz": 1.4e9}  # fmt: skip
    (d / "component.json").write_text(json.dumps({**SESSION, "sky": {"components": [comp]}}))
    names = {f"{{{p.name}}}": str(p) for p in d.iterdir()}
    names["{ms}"] = str(d / "t.ms")
    names["{new}"] = str(d / "new")
    return d, names


def _state(folder: Path) -> dict:
    """Hashes of every regular file under ``folder`` (lock files aside) and every name.

    Lock files: casacore's ``table.lock``, and uvlab's empty MS write lock ``UVLAB_LOCK``
    (a write takes it before it reads the MS, and keeps the file; docs/data-safety.md).
    """
    empty = hashlib.sha256(b"").hexdigest()
    files = {}
    for k, v in tree_digest(folder).items():
        if k.endswith("UVLAB_LOCK"):
            assert v == empty, k
        elif not k.endswith("table.lock"):
            files[k] = v
    return {"files": files, "names": sorted(p.name for p in folder.iterdir())}


@pytest.mark.parametrize(
    ("argv", "status", "expected"), CASES, ids=[f"{i:02d}-{c[0][0]}" for i, c in enumerate(CASES)]
)
def test_bad_value_is_one_line_naming_it_and_changes_nothing(inputs, argv, status, expected):
    folder, names = inputs

    def fill(text: str) -> str:
        for key, value in names.items():
            text = text.replace(key, value)
        return text

    argv = [fill(a) for a in argv]
    before = _state(folder)
    code, _out, err = run_cli(*argv)
    assert "Traceback" not in err and "Warning" not in err, err
    assert code == status, err
    line = error_line(err)
    assert line.startswith(f"uvlab {argv[0]}: error: "), line
    assert fill(expected) in line, line
    assert _state(folder) == before  # inputs unchanged, nothing written beside them


def test_clean_too_big_for_memory_is_refused_before_imaging(inputs, monkeypatch):
    """The image fits, its CLEAN does not (2N PSF, Cotton–Schwab's copies): one line, no output."""
    from uvlab.app.runtime import memory
    from uvlab.app.runtime.memory_limits import Available

    folder, names = inputs
    image = memory.imaging_estimate(1024, "ducc").total  # the CPU's default algorithm
    clean = memory.clean_estimate(1024, "ducc", deconvolver="cotton-schwab").total
    avail = int((image + 2**20) / memory.USABLE_FRACTION) + 2**24  # the image alone fits
    assert image < memory.USABLE_FRACTION * avail < image + clean
    monkeypatch.setattr(memory, "available_memory", lambda: Available(avail, "cgroup limit"))
    before = _state(folder)
    argv = [*IMAGE, "--npix", "1024", "--cell-arcsec", "1", "--niter", "100",
            "--deconvolver", "cotton-schwab"]  # fmt: skip
    code, _out, err = run_cli(*[a.replace("{ms}", names["{ms}"]).replace("{new}", names["{new}"])
                                for a in argv])  # fmt: skip
    line = error_line(err)
    assert code == 1 and "a 1024² image with ducc and cotton-schwab CLEAN needs about" in line
    assert "CLEAN PSF (2N)" in line and "major-cycle visibilities" in line
    assert _state(folder) == before


def test_memory_refusal_never_contradicts_itself():
    """Needing less than is free but more than the planned 90 %: the message says so."""
    from uvlab.app.runtime.memory import InsufficientMemoryError, MemoryEstimate, check_memory

    est = MemoryEstimate({"images": 516 * 2**20})
    with pytest.raises(InsufficientMemoryError) as info:
        check_memory(est, "comparing", available=536 * 2**20)
    assert str(info.value) == (
        "comparing needs about 516.0 MiB, more than the 482.4 MiB uvlab plans at most "
        "(90% of the 536.0 MiB of memory available); use a smaller image or fewer data"
    )
    with pytest.raises(
        InsufficientMemoryError, match=r"but only 256\.0 MiB of memory is available"
    ):
        check_memory(est, "comparing", available=256 * 2**20)
