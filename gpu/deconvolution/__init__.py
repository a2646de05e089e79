"""Deconvolution in the image plane: Högbom CLEAN, the restoring beam and the restored image.

Public entry points:

- :func:`~uvlab.gpu.deconvolution.hogbom.hogbom` — Högbom's minor cycle on a
  dirty image and its PSF (NumPy or CuPy), returning a :class:`CleanResult`;
- :func:`~uvlab.gpu.deconvolution.beam.fit_beam` — the restoring beam fitted to
  the PSF's main lobe as CASA fits it (a :class:`Beam`);
- :func:`~uvlab.gpu.deconvolution.restore.restore` — model ⊛ beam + residual;
- :func:`~uvlab.gpu.deconvolution.mask.box_mask` — a boolean CLEAN mask from boxes.
"""

from uvlab.gpu.deconvolution.beam import Beam, BeamFitError, fit_beam
from uvlab.gpu.deconvolution.hogbom import CleanDivergedError, CleanResult, auto_sigma, hogbom
from uvlab.gpu.deconvolution.mask import box_mask
from uvlab.gpu.deconvolution.restore import beam_image, restore

__all__ = [
    "Beam",
    "BeamFitError",
    "CleanDivergedError",
    "CleanResult",
    "auto_sigma",
    "beam_image",
    "box_mask",
    "fit_beam",
    "hogbom",
    "restore",
]
