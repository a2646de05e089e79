"""``uvlab image --pol``: several polarisations in one run, with WSClean's ``-pol`` names.

``--pol iquv`` (also ``i``, ``q``, ``xx,yy``, ``rr,ll``, ``xx,xy,yx,yy``, ``iv`` …)
images each polarisation on its own, as WSClean does without
``-join-polarizations``: every one is a whole ``uvlab image`` run of the single-product
path with ``--stokes P`` and ``--out PREFIX-P``, so the files are WSClean's
``PREFIX-I-dirty.fits``, ``PREFIX-Q-psf.fits``, ``PREFIX-U-image.fits`` …, each with its
own PSF (the product's weights, :func:`uvlab.app.ms.stokes.combine`) and, with
``--niter``, its own CLEAN. With one polarisation there is no tag: ``--pol q`` is
``--stokes Q`` (``PREFIX-dirty.fits``), as WSClean names it.

With ``--channels-out N`` each polarisation is a cube of its own (with
``--join-channels`` its channels CLEANed jointly), its files named as WSClean names
them, the polarisation after the channel: ``PREFIX-0000-I-dirty.fits`` …
``PREFIX-MFS-I-image.fits`` (and ``PREFIX-I-sources.txt``).

With ``--join-polarizations`` and ``--niter`` every polarisation is imaged first, then
all are CLEANed together (:mod:`uvlab.app.commands.joined_pols`; with ``--channels-out
N --join-channels`` every channel of every polarisation,
:mod:`uvlab.app.commands.joined_cube`), then each set is written, with the same names.

Everything that can be refused is refused before the MS is read (exit 2, one line): a
name that is neither Stokes letters nor a correlation, a repeated one, ``--pol`` with
``--stokes``, a product the MS's correlations cannot give in a chosen window (V from
XX and YY only), what is not supported yet with several polarisations
(``--join-polarizations`` of other than two or four, or with ``--channels-out`` but not
``--join-channels``), and an existing file of any polarisation's set (without
``--force``).

With the row-chunk options (``--workers``, ``--abs-mem``, ``--chunk-rows``,
``--scheduler``) every product comes from one read of each chunk over the Dask cluster
(:mod:`uvlab.app.commands.image_scaled_pols`; with ``--channels-out N`` one read of each
output channel's chunks, :mod:`uvlab.app.commands.image_scaled_polchan`), with the same
files.
"""

from __future__ import annotations

from uvlab.app.ms.stokes import CORR_TYPE_NAMES, STOKES


def add_pol_arg(p) -> None:
    """``--pol LIST`` (WSClean's ``-pol``)."""
    p.add_argument(
        "--pol",
        metavar="LIST",
        help="WSClean's -pol: image each of these polarisations on its own (iquv, i, v, "
        "xx,yy, rr,ll, xx,xy,yx,yy, ...), writing PREFIX-I-dirty.fits, PREFIX-Q-... (one "
        "polarisation: PREFIX-dirty.fits, no tag); not with --stokes",
    )
    from uvlab.app.commands.joined_pols import add_join_arg

    add_join_arg(p)


def parse_pols(text: str) -> tuple[str, ...]:
    """``--pol``'s value: products in order, upper case (``iquv`` → I, Q, U, V).

    Comma-separated names; a name made only of the letters I, Q, U, V is one Stokes
    parameter per letter (``iquv``, ``iv``); otherwise it must be a correlation name
    (``xx``, ``rl``). Raises ValueError with the reason.
    """
    out: list[str] = []
    for part in str(text).replace(" ", "").upper().split(","):
        if all(c in STOKES for c in part) and part:
            out.extend(part)
        elif part in CORR_TYPE_NAMES.values():
            out.append(part)
        else:
            raise ValueError(
                f"{part.lower() or 'an empty name'!r} is neither Stokes letters (i, q, u, v) "
                "nor a correlation (xx, xy, yx, yy, rr, rl, lr, ll)"
            )
    repeated = sorted({p for p in out if out.count(p) > 1})
    if repeated:
        raise ValueError(f"{', '.join(repeated)} given twice")
    return tuple(out)


def resolve(args) -> tuple[str, ...] | None:
    """The polarisations of ``--pol`` when there are several, after every check; else None.

    One polarisation becomes ``args.stokes`` (the single-product run, no tag). Usage
    errors exit 2 before anything is read (see the module docstring).
    """
    if getattr(args, "pol", None) is None:
        if getattr(args, "join_polarizations", False):
            args.parser.error("--join-polarizations needs --pol with two or four polarisations")
        return None
    try:
        pols = parse_pols(args.pol)
    except ValueError as exc:
        args.parser.error(f"--pol {args.pol}: {exc}")
    if str(args.stokes).lower() != "auto":
        args.parser.error("--pol and --stokes: give one of them")
    shown = ",".join(p.lower() for p in pols)
    if len(pols) > 1:
        joins = [getattr(args, a, False) for a in ("join_channels", "join_polarizations")]
        if getattr(args, "channels_out", 1) > 1 and joins == [False, True]:
            args.parser.error(f"--pol {shown} --channels-out with --join-polarizations: not "
                              "yet supported without --join-channels")  # fmt: skip
    from uvlab.app.commands import joined_pols

    joined_pols.check(args, pols, shown)
    _check_formable(args, pols, shown)
    if len(pols) == 1:
        args.stokes, args.pol = pols[0], None
        return None
    return pols


def _check_formable(args, pols, shown) -> None:
    """Exit 2 when a chosen window's correlations cannot give one of ``pols``."""
    from uvlab.app.commands.spw_args import resolve_spws
    from uvlab.app.ms.errors import MSError
    from uvlab.app.ms.metadata import read_data_descs, read_polarizations
    from uvlab.app.ms.stokes import recipe
    from uvlab.app.ms.tables import MSTables

    spw_arg = args.spw
    spws = resolve_spws(args)  # exit 2 for an unknown --spw
    args.spw = spw_arg  # each polarisation's run resolves it again
    try:
        with MSTables(args.ms) as ms:
            descs, corrs = read_data_descs(ms), read_polarizations(ms)
    except MSError:
        return  # the run itself says what is wrong with the MS
    for spw in spws:
        for names in {corrs[d.pol_id] for d in descs if d.spw_id == spw and d.pol_id in corrs}:
            for p in pols:
                try:
                    recipe(names, p)
                except MSError as exc:
                    where = f" in spw {spw}" if len(spws) > 1 else ""
                    args.parser.error(f"--pol {shown}: {args.ms}{where}: {exc}")


def run(args, pols, single, image_product) -> int:
    """Image each of ``pols`` with ``single`` (``uvlab image``'s one-product run).

    Every polarisation's output set is checked first; then they run in order, each
    writing its own set (a failure leaves the sets already written). With
    ``--join-polarizations`` and ``--niter``: :func:`run_joined` with ``image_product``
    (:func:`uvlab.app.commands.image.image_product`, passed in as ``single`` is).
    """
    from uvlab.app.commands.image_outputs import output_names
    from uvlab.app.commands.pol_args import pol_args
    from uvlab.app.outputs.output_set import check_outputs

    subs = pol_args(args, pols)
    names = []
    for sub in subs:
        written, others = output_names(sub)
        names += [*written, *others]
    check_outputs(names, force=args.force)  # exit 2, before anything is read
    from uvlab.app.commands import image_scaled

    if image_scaled.wanted(args):  # row chunks over a Dask cluster: one read for all
        from uvlab.app.commands.spw_args import resolve_spws

        resolve_spws(args)
        return image_scaled.run(args, pols)
    if getattr(args, "join_polarizations", False) and args.niter > 0:
        return run_joined(subs, pols, image_product)
    for sub in subs:
        print(f"polarisation {sub.stokes}:")
        code = single(sub)
        if code:
            return code
    return 0


def run_joined(subs, pols, image_product) -> int:
    """Image every polarisation, CLEAN them jointly, then write each one's set.

    Nothing is written before the joint CLEAN has ended; the sets are then written in
    order (a failure leaves the sets already written).
    """
    from uvlab.app.commands import joined_cube, joined_pols
    from uvlab.app.commands.image_write import write_product
    from uvlab.app.commands.spw_args import resolve_spws

    ims = []
    for sub in subs:
        ims.append(image_product(sub, len(resolve_spws(sub)) > 1))
    if ims[0].parts is not None:  # --channels-out N --join-channels: every channel too
        cleans = joined_cube.clean(ims, pols)
    else:
        cleans = joined_pols.clean(ims, pols)
    for im, clean in zip(ims, cleans, strict=True):
        print(f"polarisation {im.args.stokes}:")
        write_product(im, clean)
    return 0
