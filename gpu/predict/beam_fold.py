"""A beam the same at every antenna and time, folded into the sources' brightness.

When one voltage beam E serves every antenna and time, E·B·Eᴴ is the same for
every baseline, so it can multiply the sources' Stokes parameters once and the
plain sums (the per-antenna product, the row kernel) need no beam at all:
|E|² scales the fluxes of a scalar beam; a 2×2 Jones beam turns each source's
brightness into the apparent E·B·Eᴴ (Hermitian: real apparent Stokes).
"""

from __future__ import annotations

from uvlab.gpu.predict import terms


def fold_uniform_beam(prep, beam, xp):
    """``prep`` with its per-channel fluxes times |E|² of a (1, 1, chan, src) beam.

    A (1, 1, chan, src, 2, 2) Jones beam, the same at every antenna and time, turns each
    source's brightness into the apparent E·B·Eᴴ (Hermitian: real apparent Stokes), so the
    plain sums need no beam either; it needs mode "linear" or "circular".
    """
    from dataclasses import replace

    from uvlab.gpu.predict.beams import is_jones, power_beam

    if is_jones(beam):
        return _fold_jones(prep, xp.asarray(beam)[0, 0], xp)
    power = power_beam(xp.asarray(beam)[0, 0], False, xp)  # |E|², (chan, src)
    return replace(prep, stokes=(prep.stokes * power[:, :, None]).astype(prep.stokes.dtype))


def _fold_jones(prep, e, xp):
    """``prep`` with B_s → E_s·B_s·E_sᴴ (E (chan, src, 2, 2)), as apparent Stokes."""
    from dataclasses import replace

    from uvlab.gpu.predict.beams import check_jones_mode

    check_jones_mode(prep.mode)
    s = prep.stokes.astype(xp.float64)
    b = terms.stokes_to_brightness(s[..., 0], s[..., 1], s[..., 2], s[..., 3], prep.mode, xp)
    e = e.astype(xp.complex128)
    apparent = xp.matmul(xp.matmul(e, b), xp.conj(xp.swapaxes(e, -1, -2)))
    stokes = terms.brightness_to_stokes(apparent, prep.mode, xp).real
    return replace(prep, stokes=stokes.astype(prep.stokes.dtype))


def fold_if_uniform(prep, beam, xp):
    """One beam for every antenna and time: |E|² scales the fluxes, and K stays as it is."""
    if beam is None or tuple(beam.shape[:2]) != (1, 1):
        return prep, beam
    return fold_uniform_beam(prep, beam, xp), None
