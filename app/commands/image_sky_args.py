"""The image-sky options that ``uvlab simulate`` and ``uvlab predict`` share.

An image sky (a FITS image placed by its WCS, a picture centred on the phase centre,
or a drawn demo picture) is predicted by degridding. It is given either as ``--sky``
itself (a ``.fits`` file, a picture file or ``picture:NAME``: then there are no
components) or as ``--image-sky`` beside a component ``--sky``.
"""

from __future__ import annotations

from pathlib import Path


def add_image_sky_args(g, finite=None) -> None:
    """``--image-sky``, ``--image-sky-width-arcmin``, ``--image-sky-flux-jy`` on group ``g``.

    (``finite`` is unused: the values are checked against :mod:`uvlab.app.skymodel.limits`.)
    """
    from uvlab.app.commands.validate import number
    from uvlab.app.skymodel.limits import MAX_FLUX_JY, MAX_PICTURE_ARCMIN

    g.add_argument(
        "--image-sky",
        metavar="IMAGE",
        help="also observe an image: a FITS image (placed by its WCS), a picture (.png, .jpg, "
        "…, centred) or a demo picture (radio-galaxy, spiral, ring); predicted by degridding",
    )
    g.add_argument(
        "--image-sky-width-arcmin", metavar="W",
        type=number(0.0, MAX_PICTURE_ARCMIN, open_lo=True, unit="arcmin"),
        help="angular width of a picture (demo pictures: 4)",
    )  # fmt: skip
    g.add_argument(
        "--image-sky-flux-jy", default=1.0, metavar="J",
        type=number(0.0, MAX_FLUX_JY, open_lo=True, unit="Jy"),
        help="total flux of a picture (default 1 Jy)",
    )  # fmt: skip


def is_image_sky(text: str | None) -> bool:
    """A ``--sky`` that names an image sky: a FITS or picture file, or ``picture:NAME``."""
    from uvlab.app.skymodel.image_sky_files import PICTURE_SUFFIXES

    if not text:
        return False
    suffix = Path(str(text)).suffix.lower()
    return suffix in (".fits", ".fit", ".fts", *PICTURE_SUFFIXES) or str(text).lower().startswith(
        "picture:"
    )


def load_skies(args, load_components):
    """(component SkyModel, ImageSky or None) of ``--sky`` and ``--image-sky``.

    ``load_components()`` reads a component ``--sky``; an image ``--sky`` gives no
    components. SkyModelError (one line) for two image skies or a bad image;
    ``--strict`` makes the image's notes errors (:func:`check_image_sky`).
    """
    from uvlab.app.commands.sky_strict import check_image_sky
    from uvlab.app.skymodel import SkyModel, SkyModelError
    from uvlab.app.skymodel.image_sky_files import load_image_sky

    source = getattr(args, "image_sky", None)
    if is_image_sky(args.sky):
        if source:
            raise SkyModelError("give one image sky: --sky is an image, and so is --image-sky")
        source, sky = args.sky, SkyModel(())
    else:
        sky = load_components()
    if not source:
        return sky, None
    image = load_image_sky(
        source, width_arcmin=args.image_sky_width_arcmin, flux_jy=args.image_sky_flux_jy
    )
    check_image_sky(args, image)  # warnings, or errors with --strict
    return sky, image
