"""Degridding: visibilities of a model image, by any algorithm that has a degridder.

:func:`degrid` is the public entry, the reverse of the gridders: each
catalogue algorithm (:mod:`uvlab.gpu.gridders.registry`) names its degridder,
the exact adjoint of its gridder with the same
:class:`~uvlab.gpu.gridders.params.GridParams` (correct → pad / FFT →
interpolate with the same taps; :mod:`uvlab.gpu.gridders.degrid` on the host,
:mod:`uvlab.gpu.gridders.cuda_degrid` on the GPU), and ``"dft"`` the exact
direct sum (:mod:`uvlab.gpu.gridders.dft_predict`).
"""

from __future__ import annotations

from uvlab.gpu.backend import get_xp
from uvlab.gpu.gridders import registry
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import DEGRIDDERS
from uvlab.gpu.image_spec import ImageSpec

__all__ = ["DEGRIDDERS", "degrid"]


def degrid(
    model_image,
    u,
    v,
    spec: ImageSpec,
    algorithm: str = "conv",
    params: GridParams | None = None,
    w=None,
    timer=None,
):
    """Visibilities ``V = Σ_pixels img·exp(+2πi(u·l + v·m))`` of a model image.

    DESIGN §1's predict for an image of Jy-per-pixel values: ``img[j, i]`` at
    ``l_i = −(i − N/2)·cell`` (east), ``m_j = (j − N/2)·cell`` (north).

    **w-term.** Applied with ``params.wstack`` and ``w`` given by every gridder
    (its ``w_correction``): ``ducc`` by ducc0's ``dirty2vis``, the separable
    algorithms (``conv``, ``nn``, ``nn-oversampled``, ``hybrid``, ``pruned-nn``) by
    w-stacked degridding with their own plans
    (:func:`uvlab.gpu.gridders.wstack.predict_wstack`), the adjoint of the
    w-stacking gridder; on the GPU both run on the host. Otherwise (and for the
    DFT) the sky is taken as flat (``n − 1 = 0``), which holds for ``w·(1 − n) ≪ 1``.

    Parameters
    ----------
    model_image : (N, N) float or complex
        Jy per pixel (numpy or cupy).
    u, v : (nvis,) float
        Wavelengths; cupy arrays select the CUDA degridder.
    spec : ImageSpec
    algorithm : str
        One of :data:`DEGRIDDERS`: every algorithm of the catalogue.
    params : GridParams, optional
        As for gridding; the degridder is the adjoint of the gridder with the
        same parameters. Default ``GridParams()``.
    w : (nvis,) float, optional
        Wavelengths (see above).
    timer : StageTimer, optional

    Returns
    -------
    (nvis,) complex, in the namespace of ``u``: complex128, or on the GPU
    complex64 when ``params.precision == "single"``.
    """
    xp = get_xp(u)
    fn = registry.algorithm(algorithm).degridder(xp)
    return fn(model_image, u, v, spec, params or GridParams(), w=w, timer=timer)
