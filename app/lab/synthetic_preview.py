"""The preview images of a synthetic run, made as its chunks are predicted (no Qt).

The preview image is the natural-weighted ``conv`` (ducc0, ε = :data:`PREVIEW_EPS`) image
of the chunks predicted so far, accumulated linearly: ``Σ_k D_k·W_k / Σ_k W_k`` with
``D_k`` the normalised image of the times predicted since the previous preview and ``W_k``
their weight sum (:class:`Previews`); one is drawn at most every
:data:`PREVIEW_INTERVAL_S`, and after the last chunk.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from uvlab.app.lab.samples import check

if TYPE_CHECKING:
    from uvlab.app.lab.synthetic_run import SyntheticRun

#: Accuracy of the preview images.
PREVIEW_EPS = 1e-4
#: A preview image and the uv so far are made at most this often (and after the last chunk).
PREVIEW_INTERVAL_S = 0.25


@dataclass
class Previews:
    """The preview image so far: Σ D_k·W_k (an image once one is made) and Σ W_k.

    ``shown``: times in the preview so far; ``last_shown``: when it was drawn
    (:func:`time.monotonic`); ``seconds``: the time spent imaging previews.
    """

    acc: object = 0.0
    wsum: float = 0.0
    shown: int = 0
    last_shown: float = -math.inf
    seconds: float = 0.0

    def due(self, last: bool) -> bool:
        """Whether to draw now: after the last chunk, else at most every PREVIEW_INTERVAL_S."""
        return last or time.monotonic() - self.last_shown >= PREVIEW_INTERVAL_S

    def update(self, run: SyntheticRun, vis, stop: int) -> np.ndarray | None:
        """Add the times predicted since the last preview; the preview (None: none asked)."""
        preview = None
        if run.request.preview:  # image the times predicted since the last preview
            t0 = time.perf_counter()
            rows = slice(self.shown * run.nbl, stop * run.nbl)
            d, w = preview_image(
                run.uvw[rows],
                run.obs.freq_hz,
                vis[self.shown : stop].reshape(-1, run.nchan),
                run.flag[rows],
                run.spec,
                run.request.imaging,
                run.dev,
            )
            self.acc, self.wsum = self.acc + d * w, self.wsum + w
            preview = self.acc / self.wsum if self.wsum > 0 else None
            self.seconds += time.perf_counter() - t0
            check(run.cancelled)
        self.shown, self.last_shown = stop, time.monotonic()
        return preview


def preview_image(uvw, freq_hz, vis, flag, spec, im, dev) -> tuple[np.ndarray, float]:
    """(normalised natural-weighted conv image, weight sum) of one chunk; zeros if all flagged."""
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.imaging.imager import ImagingError, make_image
    from uvlab.gpu.imaging.weighting import Weighting

    try:
        res = make_image(
            uvw,
            freq_hz,
            vis,
            1.0,
            spec,
            flag=flag[:, None],
            weighting=Weighting("natural", 0.0, im.taper_arcsec),
            algorithm="conv",
            params=GridParams.from_eps(PREVIEW_EPS),
            device=dev,
            psf=False,
        )
    except ImagingError:
        return np.zeros((spec.npix, spec.npix)), 0.0
    return res.dirty, res.sum_weights
