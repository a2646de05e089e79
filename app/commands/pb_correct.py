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
(:mod:`uvlab.app.instrument.beam_pattern`). The beam points at the phase centre.

A cube turns on the sky as the parallactic angle χ of an alt-az dish changes, as the
predict turns it (:func:`~uvlab.gpu.predict.beams.sample_cube`): its power beam is then
the average over the observation, ``A = mean over (time, antenna) of A_cube(R(χ)·(l, m))``
at every distinct time of the selection and every antenna (χ = 0 for an equatorial
mount), interpolated linearly between turns of :data:`CHI_STEP` (:func:`track_chi`,
:func:`chi_bins`, :func:`power_beam`). For a point
source and natural weighting with equal rows, the dirty image at the source is the flux
times that average, so the corrected image gives the flux back. The analytic models are
circular: no rotation changes them.
"""

from __future__ import annotations

import argparse
import math

#: The χ step of a turning cube's average, radians (interpolated linearly between steps:
#: 5e-5 of the flux where a 2:1 beam is at a fifth of its peak).
CHI_STEP = math.radians(1.0)
#: A turning cube is sampled on at most this many pixels a side (one turn of 512² takes
#: ~0.1 s), bilinear between them, and at most :data:`TURN_CHANNELS` channels.
TURN_GRID = 512
TURN_CHANNELS = 8


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


def power_beam(model: str, cube, spec, freq_hz, dish_m: float, chi=None):
    """A(l, m) = mean over ``freq_hz`` of E² (½·Σ|E_ij|² for a Jones cube), on the image
    pixels ``img[j, i]``; for a cube with ``chi`` (any shape, radians: the parallactic
    angles of the observation's times and antennas), its mean over them too
    (:func:`chi_bins`)."""
    import numpy as np

    from uvlab.gpu.predict.beams import voltage_pattern

    ll, mm = np.meshgrid(spec.l_axis(), spec.m_axis())  # [j, i]
    freq = np.atleast_1d(np.asarray(freq_hz, dtype=np.float64))
    if cube is None:
        r = np.hypot(ll, mm)
        return np.mean([voltage_pattern(model, r, f, dish_m) ** 2 for f in freq], axis=0)
    angles, counts = chi_bins(chi)
    if cube.freq_axis[2] == 1:  # one plane: every channel samples it alike
        freq = freq[:1]
    elif angles.size > 1 and freq.size > TURN_CHANNELS:  # turning: a few channels
        freq = freq[np.unique(np.linspace(0, freq.size - 1, TURN_CHANNELS).round().astype(int))]
    n = spec.npix
    stride = 1 if angles.size == 1 else -(-n // TURN_GRID)  # turning: a bounded cost
    rows = np.unique(np.append(np.arange(0, n, stride), n - 1))  # the pixels sampled
    lc, mc = np.meshgrid(spec.l_axis()[rows], spec.m_axis()[rows])
    total = np.zeros(lc.size)
    for angle, count in zip(angles, counts):
        total += count * _cube_power(cube, lc.ravel(), mc.ravel(), freq, angle)
    coarse = (total / counts.sum()).reshape(lc.shape)
    if stride == 1:
        return coarse
    # bilinear between the sampled pixels, one axis at a time
    pix = np.arange(n)
    across = np.array([np.interp(pix, rows, line) for line in coarse])  # (rows, n)
    return np.array([np.interp(pix, rows, col) for col in across.T]).T


def _cube_power(cube, l, m, freq, angle: float):
    """Mean over ``freq`` of the cube's Stokes-I power at (l, m) turned by ``angle``."""
    import numpy as np

    from uvlab.gpu.predict.beams import power_beam as stokes_i_power
    from uvlab.gpu.predict.beams import sample_cube

    chi = np.array([[angle]])
    e = sample_cube(cube.data, cube.l_axis, cube.m_axis, cube.freq_axis, l, m, freq, chi)
    e = e[0, 0]  # (chan, pix[, 2, 2])
    return np.mean(stokes_i_power(e, cube.jones), axis=0)


def observation_chi(args, cube, path, times_mjd_s, ra0_rad: float, dec0_rad: float):
    """:func:`track_chi` where ``--pb-correct`` has a cube to turn; else None."""
    if not getattr(args, "pb_correct", False) or cube is None:
        return None
    return track_chi(path, times_mjd_s, ra0_rad, dec0_rad)


def chi_bins(chi):
    """(angles, weights): the multiples of :data:`CHI_STEP` that the angles ``chi`` lie
    between, each angle shared by its two neighbours in proportion to its nearness
    (linear interpolation in χ: the average is exact where the beam changes linearly
    within a step); one angle 0 for None. The distinct rotations a beam average needs."""
    import numpy as np

    if chi is None:
        return np.zeros(1), np.ones(1)
    wrapped = np.angle(np.exp(1j * np.ravel(np.asarray(chi, dtype=np.float64))))
    below = np.floor(wrapped / CHI_STEP)
    frac = wrapped / CHI_STEP - below
    index = np.concatenate([below, below + 1]).astype(np.int64)
    index, where = np.unique(index, return_inverse=True)
    weights = np.bincount(where, np.concatenate([1.0 - frac, frac]), minlength=index.size)
    keep = weights > 0
    return index[keep] * CHI_STEP, weights[keep]


def track_chi(path, times_mjd_s, ra0_rad: float, dec0_rad: float):
    """(time, ant) parallactic angles at the distinct ``times_mjd_s`` of the selection of
    the MS at ``path``, at each antenna of its ANTENNA table: χ of the phase centre for a
    mount that turns the sky in the dish's frame (alt-az, and any but equatorial, as the
    predict turns a cube), 0 for an equatorial one."""
    import numpy as np

    from uvlab.app.instrument.parallactic import parallactic_angles
    from uvlab.app.ms.tables import MSTables, translated
    from uvlab.app.observing.sites import ecef_to_geodetic

    with MSTables(path) as ms:
        ant = ms.sub("ANTENNA")
        with translated(ms.path):
            ecef = np.asarray(ant.getcol("POSITION"), dtype=np.float64).reshape(-1, 3)
            cols = ant.colnames()
            mounts = ant.getcol("MOUNT") if "MOUNT" in cols else [""] * len(ecef)
    lon, lat, _ = ecef_to_geodetic(ecef)
    times = np.unique(np.asarray(times_mjd_s, dtype=np.float64))
    chi = parallactic_angles(times, ra0_rad, dec0_rad, np.atleast_1d(lon), np.atleast_1d(lat))
    fixed = np.array(["equatorial" in str(m).lower() for m in mounts])
    return np.where(fixed[None, :], 0.0, chi)


def write_pb_files(args, cube, prefix, image, spec, ra, dec, common, freq_hz, dish_m,
                   chi=None) -> list:  # fmt: skip
    """Write PREFIX-pb.fits and PREFIX-image-pb.fits; returns their paths. ``chi``: the
    observation's parallactic angles (:func:`track_chi`), for a cube's turning."""
    import numpy as np

    from uvlab.app.outputs.fits_io import write_image_fits

    dish = args.pb_dish_diameter_m or dish_m
    if cube is None and not dish:
        raise ValueError(
            f"{args.ms}: the ANTENNA table gives no dish diameter; pass --pb-dish-diameter-m"
        )
    pb = power_beam(args.pb_model, cube, spec, freq_hz, dish, chi)
    if pb.shape != np.shape(image):  # --size W H: the image is the centre of the N² one
        from uvlab.app.outputs.fits_io import centre_crop

        pb = centre_crop(pb, np.shape(image)[1], np.shape(image)[0])
    corrected = np.where(pb >= args.pb_limit, image / np.where(pb > 0, pb, 1.0), np.nan)
    return [
        write_image_fits(f"{prefix}-pb.fits", pb, spec, ra, dec, **common, bunit=""),
        write_image_fits(f"{prefix}-image-pb.fits", corrected, spec, ra, dec, **common),
    ]
