"""The comparison report: one PNG with images, error maps and a timing chart.

Row 1 shows the DFT reference and each algorithm's dirty image; row 2 each
algorithm's error map ``|I − I_dft| / peak(I_dft)`` on a logarithmic colour
scale with its RMS and maximum; row 3 a stacked horizontal bar chart of the
stage timings with the gridding rate. A subsampled reference is named in the
title and in the error maps' labels. Matplotlib's Agg backend only.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

_STAGE_COLOURS = {
    "weighting": "tab:gray",
    "sort / bin": "tab:purple",
    "grid": "tab:blue",
    "prune": "tab:orange",
    "FFT": "tab:green",
    "correct": "tab:red",
    "host→device": "tab:brown",
    "device→host": "tab:pink",
}


def image_extent_arcmin(spec, shape=None):
    """extent= for imshow of ``img[j, i]``, l increasing to the left (east), m up, in arcmin.

    The outer pixel edges: each pixel centre at its (l_i, m_j) of
    :class:`~uvlab.gpu.image_spec.ImageSpec` (as the window's views place it), the
    whole spanning the field of view ``npix × cell``. ``shape`` (H, W): a centre crop
    of the image (``--size W H``), its pixel (H//2, W//2) the image's centre.
    """
    cell = np.degrees(spec.cell_rad) * 60
    h, w = shape if shape is not None else (spec.npix, spec.npix)
    left, right = (w // 2 + 0.5) * cell, -(w - w // 2 - 0.5) * cell
    bottom, top = -(h // 2 + 0.5) * cell, (h - h // 2 - 0.5) * cell
    return (left, right, bottom, top)


def pyplot():
    """matplotlib.pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path, dpi: float) -> Path:
    """Save ``fig`` as PNG atomically, after a disk-space check; returns the path.

    The estimate is an uncompressed RGBA image of the figure's size in pixels
    (:func:`uvlab.app.outputs.atomic.png_size_bound`), so the check never lets a PNG
    through that cannot fit.
    """
    from uvlab.app.outputs.atomic import atomic_path, png_size_bound

    path = Path(path)
    width, height = (fig.get_size_inches() * dpi).round().astype(int)
    need = png_size_bound(width, height)
    with atomic_path(path, need_bytes=need, what="the PNG image") as tmp:
        # zlib level 1: a tenth of the encoding time for a few per cent more bytes
        fig.savefig(tmp, dpi=dpi, format="png", pil_kwargs={"compress_level": 1})
    return path


def show(ax, img, spec, title, *, cropped: bool = False, **kwargs):
    """``imshow`` of ``img[j, i]`` in (l, m) arcmin, east to the left (DESIGN §1).

    ``spec`` is the map's own geometry (a subsampled map's
    :meth:`~uvlab.gpu.image_spec.ImageSpec.every`): ValueError when ``img`` is not
    ``npix × npix`` (with ``cropped``, a centre crop of it, ``--size W H``), so that no
    map is drawn on another's axes.
    """
    shape = np.shape(img)[-2:]
    n = spec.npix
    fits = shape[0] <= n and shape[1] <= n if cropped else shape == (n, n)
    if len(shape) != 2 or not fits:
        raise ValueError(f"a {np.shape(img)} map drawn on a {n}² image's axes")
    extent = image_extent_arcmin(spec, shape)
    im = ax.imshow(img, origin="lower", extent=extent, interpolation="nearest", **kwargs)
    ax.set_xlabel("l (arcmin, east ←)")
    ax.set_ylabel("m (arcmin)")
    ax.set_title(title, fontsize=10)
    return im


def timing_chart(ax, comparison) -> None:
    """Stacked horizontal bars: seconds per stage for each algorithm."""
    names = list(comparison.results)
    stages: list[str] = []
    for r in comparison.results.values():
        stages += [s for s in r.timing if s not in stages]
    y = np.arange(len(names))
    left = np.zeros(len(names))
    for s in stages:
        secs = np.array([comparison.results[n].timing.get(s, 0.0) for n in names])
        ax.barh(y, secs, left=left, color=_STAGE_COLOURS.get(s), label=s, height=0.6)
        left += secs
    for k, n in enumerate(names):
        rate = comparison.results[n].rate_vis_per_s
        text = f" {left[k] * 1e3:.1f} ms" + (f", {rate:.3g} vis/s gridded" if rate else "")
        ax.text(left[k], k, text, va="center", fontsize=9)
    ax.set_yticks(y, names)
    ax.invert_yaxis()
    ax.set_xlabel("time (s)")
    ax.set_xlim(0, max(left.max(), 1e-9) * 1.9)
    ax.set_title(
        f"timing per stage (reference DFT: {comparison.reference_timing['dft']:.2f} s "
        f"on {comparison.reference_device})",
        fontsize=10,
    )
    ax.legend(loc="lower right", fontsize=8)


def compare_report(comparison, path, title: str = "") -> Path:
    """Write the report PNG of a :class:`~uvlab.app.lab.compare.Comparison` and return its path."""
    plt = pyplot()
    fig = report_figure(comparison, title)
    try:
        return save_figure(fig, path, dpi=80)
    finally:
        plt.close(fig)


def report_figure(comparison, title: str = ""):
    """The report's matplotlib figure (the caller closes it).

    The entries' dirty images are drawn on the image's geometry, the reference and
    the error maps on theirs (:attr:`~uvlab.app.lab.compare.Comparison.reference_spec`):
    every map spans the same field of view.
    """
    from matplotlib.colors import LogNorm

    plt = pyplot()
    names = list(comparison.results)
    ncol = len(names) + 1
    fig = plt.figure(figsize=(3.8 * ncol + 1, 12))
    grid = fig.add_gridspec(
        3,
        ncol,
        height_ratios=[1, 1, 0.8],
        left=0.05,
        right=0.96,
        bottom=0.05,
        top=0.92,
        wspace=0.55,
        hspace=0.4,
    )
    spec, coarse = comparison.spec, comparison.reference_spec
    ref = comparison.reference
    vmin, vmax = float(ref.min()), float(ref.max())
    ax = fig.add_subplot(grid[0, 0])
    im = show(ax, ref, coarse, comparison.reference_label, cmap="inferno", vmin=vmin, vmax=vmax)
    fig.colorbar(im, ax=ax, fraction=0.046, label="Jy/beam")
    top = max(float(r.error.max()) for r in comparison.results.values())
    positive = [r.error[r.error > 0] for r in comparison.results.values()]
    floor = min((float(np.percentile(e, 1)) for e in positive if e.size), default=top * 1e-6)
    floor = max(floor, top * 1e-10, 1e-300)
    norm = LogNorm(vmin=floor, vmax=max(top, floor * 10))
    for k, name in enumerate(names, start=1):
        r = comparison.results[name]
        ax = fig.add_subplot(grid[0, k])
        im = show(ax, r.image, spec, f"{name}", cmap="inferno", vmin=vmin, vmax=vmax)
        fig.colorbar(im, ax=ax, fraction=0.046, label="Jy/beam")
        ax = fig.add_subplot(grid[1, k])
        im = show(
            ax,
            np.maximum(r.error, floor),
            coarse,
            f"{name}: |I − I_dft| / peak\nrms central {r.metrics['rms_central']:.2e}, "
            f"max {r.metrics['max_error']:.2e}",
            cmap="magma",
            norm=norm,
        )
        fig.colorbar(im, ax=ax, fraction=0.046, label="relative error")
    ax = fig.add_subplot(grid[1, 0])
    ax.axis("off")
    ax.text(
        0.0,
        0.5,
        f"reference: {comparison.reference_label}\n"
        f'{spec.npix}² pixels, cell {spec.cell_arcsec:.3g}"\n{comparison.nvis} visibilities\n'
        "error maps: log colour scale",
        va="center",
        fontsize=10,
    )
    ax = fig.add_subplot(grid[2, :])
    timing_chart(ax, comparison)
    # room for the longest algorithm name left of the bars (about 0.09 in per character)
    label_in = 0.09 * max(len(n) for n in names) + 0.15
    shift = max(0.0, label_in / fig.get_figwidth() - 0.05)
    box = ax.get_position()
    ax.set_position([box.x0 + shift, box.y0, box.width - shift, box.height])
    fig.suptitle(title or f"gridding algorithms vs {comparison.reference_label}")
    return fig
