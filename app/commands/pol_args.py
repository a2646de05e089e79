"""One ``uvlab image`` namespace per ``--pol`` product, as WSClean names its outputs.

The one-process run (:mod:`uvlab.app.commands.image_pols`) and the chunked run
(:mod:`uvlab.app.commands.image_scaled`) both image each product with its own namespace.
"""

from __future__ import annotations

import argparse


def pol_args(args, pols) -> list[argparse.Namespace]:
    """One namespace per polarisation: ``--stokes P``, ``--out PREFIX-P``.

    ``joined_pols``: the polarisations CLEANed with it (``--join-polarizations``), or None.
    """
    joined = tuple(pols) if getattr(args, "join_polarizations", False) else None
    out = []
    for p in pols:
        sub = argparse.Namespace(**vars(args))
        sub.pol, sub.stokes, sub.out = None, p, f"{args.out}-{p}"
        sub.cube_pol = (args.out, p)  # a cube's FITS names: PREFIX-0000-P-… (WSClean's)
        sub.join_polarizations, sub.joined_pols = False, joined  # a single product each
        out.append(sub)
    return out
