"""``uvlab image --pb-correct``: the primary-beam image and a primary-beam-corrected image.

As WSClean's ``-apply-primary-beam`` does, two more files: ``PREFIX-pb.fits``, the
array's Stokes-I power beam A(l, m) averaged over the channels imaged (1 at the pointing
centre of a normalised beam): A = E² for a scalar beam, and A = ½·Σ_ij |E_ij|² =
½·tr(E·Eᴴ) for a polarised one (a pattern, ``--pb-model 'beam_$(corr)_$(reim).fits'``),
which is what an unpolarised source shows in I = ½(XX + YY) and reduces to E² for E·𝟙;
and ``PREFIX-image-pb.fits``, the image divided by it — the restored
image after CLEAN, else the dirty image — blanked (NaN) where A is below ``--pb-limit``
(default 0.005, WSClean's ``-primary-beam-limit``). The beam is an analytic model from
the MS's dish diameter (ANTENNA::DISH_DIAMETER, median; or ``--dish-diameter-m``), a
FITS beam cube (:mod:`uvlab.app.instrument.beam_cube`) or a pattern set of them
(:mod:`uvlab.app.instrument.beam_pattern`), sampled at the pixels with no parallactic rotation. The
beam points at the phase centre.
"""

from __future__ import annotations

import argparse


def add_pb_args(p: argparse.ArgumentParser) -> None:
    """The ``--pb-correct`` options of ``uvlab image``."""
    from uvlab.app.commands.jones_args import _beam
    from uvlab.app.commands.validate import positive

    g = p.add_argument_group("primary-beam correction (PREFIX-pb.fits, PREFIX-image-pb.fits)")
    g.add_argument(
        "--pb-correct", action="store_true",
        help="also write the primary beam and the image divided by it, as WSClean does",
    )  # fmt: skip
    g.add_argument(
        "--pb-model", type=_beam, default="airy",
        metavar="{airy,gaussian,cos3,FILE.fits,PATTERN}",
        help="the beam for --pb-correct (default airy); a pattern such as "
        "'beam_$(corr)_$(reim).fits' is a polarised beam, whose Stokes-I power "
        "½·Σ|E_ij|² is used",
    )  # fmt: skip
    g.add_argument(
        "--pb-dish-diameter-m", type=positive, metavar="D",
        help="dish diameter for --pb-correct, metres (default: the MS's)",
    )  # fmt: skip
    g.add_argument(
        "--pb-limit", type=positive, default=0.005, metavar="A",
        help="blank the corrected image where the power beam is below A (default 0.005)",
    )  # fmt: skip


def prepare(args):
    """The beam cube of ``--pb-model`` (None for analytic models), read before imaging."""
    if not getattr(args, "pb_correct", False):
        return None
    from uvlab.app.instrument.jones import JonesOptions

    model = args.pb_model
    if model == "none":
        from uvlab.app.runtime.errors import UsageError

        raise UsageError("--pb-correct needs a beam: --pb-model airy, gaussian, cos3 or a cube")
    return JonesOptions(primary_beam=model).load_cube()


def power_beam(model: str, cube, spec, freq_hz, dish_m: float):
    """A(l, m) = mean over ``freq_hz`` of E² (½·Σ|E_ij|² for a Jones cube), on the image
    pixels ``img[j, i]``."""
    import numpy as np

    from uvlab.gpu.predict.beams import voltage_pattern

    ll, mm = np.meshgrid(spec.l_axis(), spec.m_axis())  # [j, i]
    freq = np.atleast_1d(np.asarray(freq_hz, dtype=np.float64))
    if cube is None:
        r = np.hypot(ll, mm)
        return np.mean([voltage_pattern(model, r, f, dish_m) ** 2 for f in freq], axis=0)
    from uvlab.gpu.predict.beams import power_beam as stokes_i_power
    from uvlab.gpu.predict.beams import sample_cube

    e = sample_cube(cube.data, cube.l_axis, cube.m_axis, cube.freq_axis, ll.ravel(),
                    mm.ravel(), freq)[0, 0]  # (chan, pix[, 2, 2])  # fmt: skip
    return np.mean(stokes_i_power(e, cube.jones), axis=0).reshape(ll.shape)


def write_pb_files(args, cube, prefix, image, spec, ra, dec, common, freq_hz, dish_m) -> list:
    """Write PREFIX-pb.fits and PREFIX-image-pb.fits; returns their paths."""
    import numpy as np

    from uvlab.app.outputs.fits_io import write_image_fits

    dish = args.pb_dish_diameter_m or dish_m
    if cube is None and not dish:
        raise ValueError(
            f"{args.ms}: the ANTENNA table gives no dish diameter; pass --pb-dish-diameter-m"
        )
    pb = power_beam(args.pb_model, cube, spec, freq_hz, dish)
    if pb.shape != np.shape(image):  # --size W H: the image is the centre of the N² one
        from uvlab.app.outputs.fits_io import centre_crop

        pb = centre_crop(pb, np.shape(image)[1], np.shape(image)[0])
    corrected = np.where(pb >= args.pb_limit, image / np.where(pb > 0, pb, 1.0), np.nan)
    return [
        write_image_fits(f"{prefix}-pb.fits", pb, spec, ra, dec, **common, bunit=""),
        write_image_fits(f"{prefix}-image-pb.fits", corrected, spec, ra, dec, **common),
    ]
