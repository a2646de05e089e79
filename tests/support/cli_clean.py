"""What ``uvlab image --niter`` does with a window's job request: the CLI's CLEAN path.

The ``image`` task's dirty image, the CLI's 2N PSF
(:func:`~uvlab.gpu.deconvolution.inputs.wide_psf`) and
:func:`uvlab.app.lab.deconvolve.clean`, the function ``uvlab image`` runs, on the same
samples: the tests that the window CLEANs as the CLI does compare against it.
"""

from __future__ import annotations

from dataclasses import replace

from uvlab.app.lab.clean_task import CleanOptions
from uvlab.app.lab.deconvolve import clean
from uvlab.app.lab.jobs import JobRequest
from uvlab.app.lab.live import run_job
from uvlab.app.lab.samples import WorkCache
from uvlab.app.lab.sources import read_samples
from uvlab.gpu.deconvolution.inputs import wide_psf


def cli_clean(req: JobRequest, opts: CleanOptions, device: str, mask=None):
    """The CLI's CLEAN of ``req``'s scene with ``opts`` (``mask``: (N, N) bool, or None)."""
    image = run_job(replace(req, task="image", clean=None), WorkCache())
    s = read_samples(req)
    im, params = req.imaging, req.grid_params()
    psf = wide_psf(s, s.spec, im.weighting_spec(), im.algorithm, params, device)
    return clean(
        s, s.spec, image.dirty, psf, opts, params, im.weighting_spec(), device,
        algorithm=im.algorithm, mask=mask,
    )  # fmt: skip
