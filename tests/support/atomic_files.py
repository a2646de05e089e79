"""Old files, half writes and a FITS image: the atomic outputs' tests' helpers
(tests/app/outputs/test_atomic*.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from uvlab.app.outputs import atomic
from uvlab.gpu.image_spec import ARCSEC, ImageSpec

OLD = b"the old file \x00\xff keeps every byte\n" * 100


def old_file(path: Path) -> Path:
    path.write_bytes(OLD)
    return path


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


def half_then(exc: BaseException):
    """A writer that puts half of its data in the file, then raises ``exc``."""

    def write(path, data: bytes) -> None:
        with open(path, "wb") as fh:
            fh.write(data[: len(data) // 2])
            fh.flush()
        raise exc

    return write


def half_open(monkeypatch, exc: BaseException) -> None:
    """Make :mod:`uvlab.app.outputs.atomic`'s own ``open`` write half of the text, then raise."""

    class HalfFile:
        def __init__(self, path, *args, **kwargs):
            self.fh = open(path, "wb")

        def write(self, data):
            data = data.encode() if isinstance(data, str) else data
            self.fh.write(data[: len(data) // 2])
            raise exc

        def __enter__(self):
            return self

        def __exit__(self, *exc_info):
            self.fh.close()

    monkeypatch.setattr(atomic, "open", HalfFile, raising=False)


def write_fits(path, npix=16, overwrite=True):
    from uvlab.app.outputs.fits_io import write_image_fits

    img = np.arange(npix * npix, dtype=float).reshape(npix, npix)
    spec = ImageSpec(npix, 2.0 * ARCSEC)
    return write_image_fits(path, img, spec, 10.0, -30.0, freq_hz=1.4e9, overwrite=overwrite)
