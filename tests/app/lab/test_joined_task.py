"""The window's joined-channel CLEAN equals ``uvlab image --channels-out N --join-channels``.

The lab's ``clean`` task with ``channels_out`` N > 1 (:mod:`uvlab.app.lab.joined_task`)
runs on the lab's samples what the CLI runs on an MS: the observation is written as a
MeasurementSet, imaged and CLEANed by ``uvlab image`` (the oracle: its FITS files), and
the window's MFS images and each channel's restored image must equal the CLI's to 1e-6
of the peak (the MS holds the visibilities in single precision).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from tests.support.cli import run_cli
from tests.support.cube_ms import read_fits
from tests.support.observations import SMALL_OBS
from uvlab.app.lab.clean_task import CleanOptions, CleanState
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import JobRequest, Partial, Progress
from uvlab.app.lab.live import iter_job, run_job
from uvlab.app.lab.placement import demo_sky_for
from uvlab.app.lab.samples import WorkCache
from uvlab.app.lab.sources import read_samples

NPIX, NCHAN, NITER = 64, 4, 50
OBS = replace(SMALL_OBS, nchan=NCHAN, chan_width_hz=5.0e7)


def _request(channels_out: int, terms=None, deconvolver="hogbom", weighting="natural"):
    imaging = ImagingOptions(npix=NPIX, algorithm="ducc", eps=1e-6, weighting=weighting)
    sky = demo_sky_for("teaching", OBS, imaging)
    opts = CleanOptions(deconvolver, niter=NITER, gain=0.1, mgain=0.8,
                        channels_out=channels_out, fit_spectral_pol=terms)  # fmt: skip
    return JobRequest("synthetic", imaging, "cpu", OBS, sky, task="clean", clean=opts,
                      threads=1)  # fmt: skip


def _cli(req: JobRequest, folder) -> str:
    """``uvlab image --channels-out N --join-channels`` of ``req``'s observation as an MS."""
    from uvlab.app.ms.writer import write_ms

    s = read_samples(req).on_host()
    obs = s.raw
    ms = write_ms(folder / "obs.ms", obs, s.vis.reshape(obs.ntime, obs.nbl, -1))
    opts, prefix = req.clean, folder / "cli"
    cell = s.spec.cell_rad * 180 / math.pi * 3600
    terms = () if opts.fit_spectral_pol is None else ("--fit-spectral-pol", opts.fit_spectral_pol)
    code, _, err = run_cli(
        "image", "--ms", ms, "--npix", NPIX, "--cell-arcsec", repr(cell), "--algorithm", "ducc",
        "--eps", req.imaging.eps, "--weighting", req.imaging.weighting, "--device", "cpu",
        "--no-png", "--channels-out", opts.channels_out, "--join-channels", *terms,
        "--niter", opts.niter, "--gain", opts.gain, "--mgain", opts.mgain,
        "--deconvolver", opts.deconvolver, "--out", prefix,
    )  # fmt: skip
    assert code == 0, err
    return str(prefix)


def _close(a, b, what: str) -> None:
    assert a.shape == b.shape, what
    scale = np.abs(b).max()
    assert scale > 0, what
    err = np.abs(a - b).max()
    assert err <= 1e-6 * scale, f"{what}: differs by {err / scale:.3g} of its peak"


@pytest.mark.parametrize(
    ("deconvolver", "terms", "weighting"),
    [("hogbom", None, "natural"), ("cotton-schwab", 2, "uniform")],  # uniform: the MF weights
)
def test_window_joined_clean_equals_the_cli_on_the_ms(tmp_path, deconvolver, terms, weighting):
    req = _request(NCHAN, terms, deconvolver, weighting)
    events = list(iter_job(req, WorkCache()))
    win = events[-1].output
    assert isinstance(win, CleanState) and win.done and win.iterations > 0
    prefix = _cli(req, tmp_path)
    # the FITS planes are (row = m, column = l) as the window's arrays
    _close(win.restored, read_fits(f"{prefix}-MFS-image.fits")[0], "MFS restored")
    _close(win.residual, read_fits(f"{prefix}-MFS-residual.fits")[0], "MFS residual")
    _close(win.model, read_fits(f"{prefix}-MFS-model.fits")[0], "MFS model")
    assert win.channel_restored.shape == (NCHAN, NPIX, NPIX)
    for k in range(NCHAN):
        cli = read_fits(f"{prefix}-{k:04d}-image.fits")[0]
        _close(win.channel_restored[k], cli, f"channel {k} restored")
    # the channels differ (the sky's spectrum over a 200 MHz band): not one image four times
    assert (
        np.abs(win.channel_restored[0] - win.channel_restored[-1]).max()
        > 1e-3 * np.abs(win.restored).max()
    )
    stages = [e.stage for e in events if isinstance(e, Progress)]
    assert f"joined CLEAN, PSF, channel {NCHAN} of {NCHAN}" in stages
    assert any(isinstance(e, Partial) and e.clean is not None for e in events)


def test_more_channels_out_than_the_observation_has_fails_in_one_line():
    req = _request(NCHAN + 1)
    with pytest.raises(ValueError, match=f"channels out: {NCHAN + 1}, but the observation"):
        run_job(req, WorkCache())


@pytest.mark.gpu
def test_window_joined_clean_on_the_gpu_equals_the_cpu():
    """The same joined CLEAN (conv gridder) on the GPU and on the CPU, MFS and channels."""
    req = _request(NCHAN, 2, "cotton-schwab", "uniform")
    req = replace(req, imaging=replace(req.imaging, algorithm="conv"))
    cpu = run_job(req, WorkCache())
    gpu = run_job(replace(req, device="gpu"), WorkCache())
    assert gpu.iterations == cpu.iterations > 0
    for name in ("model", "residual", "restored"):
        _close(getattr(gpu, name), getattr(cpu, name), f"MFS {name}")
    for k in range(NCHAN):
        _close(gpu.channel_restored[k], cpu.channel_restored[k], f"channel {k} restored")
