"""Cotton–Schwab's major cycle in parts: the residual image of a row chunk (issue 27).

The residual image ``Re G(w·(V − D(model))) / Σw`` is linear in the weighted
visibilities, as the dirty image is (:mod:`uvlab.gpu.imaging.parts`): each part
degrids the model at its own samples, subtracts and grids what is left with the
whole data's imaging weights (:func:`~uvlab.gpu.imaging.parts.part_weights`), and the
parts' *unnormalised* residuals and Σw add. Divided once by the total Σw they are
what :class:`~uvlab.gpu.deconvolution.cotton_schwab.MajorCycle` makes of all the data
at once, to rounding — so the one CLEAN driver runs unchanged over row chunks on a
Dask cluster (:mod:`uvlab.app.scale.ms_clean`).
"""

from __future__ import annotations

from types import SimpleNamespace

from uvlab.gpu.backend import get_xp, to_numpy
from uvlab.gpu.deconvolution.cotton_schwab import MajorCycle
from uvlab.gpu.deconvolution.inputs import major_cycle_for
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.parts import PartImage, part_weights, to_device
from uvlab.gpu.imaging.weighting import Weighting


def part_cycle(
    uvw, freq_hz, vis, weight, flag, spec: ImageSpec, weighting: Weighting, totals, *,
    algorithm: str = "conv", params=None, device: str = "cpu",
) -> tuple[MajorCycle, int] | None:  # fmt: skip
    """One part's major cycle and its count of weighted samples; None where no sample has
    weight. The cycle holds the part's selected samples and imaging weights on the
    device, so a part kept for several cycles (:class:`~uvlab.app.scale.ms_read.Held`)
    pays the selection, the weights and the host→device copy once.

    Arguments as :func:`residual_part`'s.
    """
    # on the GPU, the data go to the device once: the selection and weights made there
    xp, (uvw, vis, weight, flag) = to_device(device, uvw, vis, weight, flag)
    wts = part_weights(uvw, freq_hz, vis, weight, flag, spec, weighting, totals)
    if not float(wts.sum()) > 0:
        return None
    data = SimpleNamespace(uvw=uvw, freq_hz=freq_hz, vis=vis, weight=wts, flag=flag)
    # the weights are the imaging weights already: natural weighting keeps them as they are
    major = major_cycle_for(data, spec, Weighting(), algorithm, params, xp)
    return major, int(xp.count_nonzero(wts))


def cycle_residual(cycle: tuple[MajorCycle, int] | None, model, on_device=False) -> PartImage:
    """The unnormalised residual image and Σw of a :func:`part_cycle` (None: an empty part);
    ``on_device``: a GPU cycle's image stays in device memory
    (:meth:`~uvlab.gpu.imaging.parts.PartImage.on_host` copies it)."""
    if cycle is None:
        return PartImage(None, None, 0.0, 0)
    major, nvis = cycle
    xp = get_xp(major.u)
    image = major.residual(None if model is None else xp.asarray(model, dtype=xp.float64))
    image = xp.asarray(image, dtype=xp.float64) * major.wsum
    return PartImage(image if on_device else to_numpy(image), None, major.wsum, nvis)


def residual_part(
    uvw, freq_hz, vis, weight, flag, spec: ImageSpec, weighting: Weighting, totals, model, *,
    algorithm: str = "conv", params=None, device: str = "cpu",
) -> PartImage:  # fmt: skip
    """One part's unnormalised residual image (``dirty``) and Σw; ``model`` None: its dirty image.

    Arguments as :func:`~uvlab.gpu.imaging.parts.image_part`; ``model`` (N, N) Jy/pixel.
    The grid and degrid pair is the imaging's
    (:func:`~uvlab.gpu.deconvolution.cotton_schwab.major_cycle_pair`), with w where
    ``params.w_term`` (w-stacking or w-projection).
    """
    cycle = part_cycle(
        uvw, freq_hz, vis, weight, flag, spec, weighting, totals, algorithm=algorithm,
        params=params, device=device,
    )  # fmt: skip
    return cycle_residual(cycle, model)
