"""Static figures (PNG) with matplotlib's Agg backend, for the headless commands."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from uvlab.app.outputs.report import image_extent_arcmin
from uvlab.gpu.image_spec import ImageSpec


def show_image(ax, img, spec: ImageSpec, title: str, cmap="inferno", stretch="asinh"):
    """imshow in (l, m) arcmin; ``stretch="asinh"`` lifts sidelobes and faint sources."""
    from matplotlib.colors import AsinhNorm, Normalize

    peak = float(np.nanmax(np.abs(img))) or 1.0
    norm = (
        AsinhNorm(linear_width=0.02 * peak, vmin=float(np.nanmin(img)), vmax=peak)
        if stretch == "asinh"
        else Normalize()
    )
    im = ax.imshow(
        img,
        origin="lower",
        extent=image_extent_arcmin(spec),
        cmap=cmap,
        interpolation="nearest",
        norm=norm,
    )
    ax.set_xlabel("l (arcmin, east ←)")
    ax.set_ylabel("m (arcmin)")
    ax.set_title(title)
    bar = ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="Jy/beam")
    if stretch == "asinh":
        ticks = spread_ticks(norm, norm.vmin, norm.vmax)
        bar.set_ticks(ticks, labels=[f"{t:g}" for t in ticks])
        bar.minorticks_off()
    return im


def spread_ticks(norm, vmin: float, vmax: float, min_gap: float = 0.08) -> list[float]:
    """Colour-bar ticks at 0 and ±1, 2, 5 × 10^k, at least ``min_gap`` apart once stretched.

    matplotlib's asinh locator can put 0 and 1e-3 on top of each other; here
    0 is taken first, then the candidates by decreasing |value|, and one is kept
    only when ``norm`` places it ``min_gap`` of the bar away from every kept one.
    """
    mags = [m * 10.0**k for k in range(-6, 4) for m in (1.0, 2.0, 5.0)]
    cands = [0.0] + [s * m for m in mags for s in (1.0, -1.0)]
    cands = [c for c in cands if vmin <= c <= vmax]
    cands.sort(key=lambda c: (c != 0.0, -abs(c)))  # 0 first, then the largest
    kept: list[float] = []
    pos: list[float] = []
    for c in cands:
        p = float(norm(c))
        if all(abs(p - q) >= min_gap for q in pos):
            kept.append(c)
            pos.append(p)
    return sorted(kept)


def scene_figure(output, sky, path) -> Path:
    """A 2×2 overview of a synthetic image job: uv, sky, PSF, dirty.

    Parameters
    ----------
    output : ImageOutput
        The job's output (:class:`uvlab.app.lab.jobs.ImageOutput`).
    sky : SkyModel
        The components predicted.
    path : path of the PNG
    """
    from uvlab.app.outputs.report import pyplot, save_figure

    plt = pyplot()
    spec = output.spec
    # fixed margins: constrained layout costs ~0.6 s of solver for a fixed 2×2 grid
    fig, axes = plt.subplots(2, 2, figsize=(11, 10))
    fig.subplots_adjust(left=0.07, right=0.93, bottom=0.06, top=0.95, wspace=0.35, hspace=0.25)
    uv_density_panel(axes[0, 0], output)
    ax = axes[0, 0]
    ax.set_title(f"uv coverage: {output.description.split(',')[0]}, {_baselines(output)} baselines")
    ax = axes[0, 1]
    lm = output.sources_lm
    flux = np.array([c.stokes[0] for c in sky.components])
    ax.scatter(
        np.degrees(lm[:, 0]) * 60,
        np.degrees(lm[:, 1]) * 60,
        s=20 + 200 * flux / max(flux.max(), 1e-30),
        c="tab:red",
    )
    ext = image_extent_arcmin(spec)
    ax.set_xlim(ext[0], ext[1])
    ax.set_ylim(ext[2], ext[3])
    ax.set_aspect("equal")
    ax.set_xlabel("l (arcmin, east ←)")
    ax.set_ylabel("m (arcmin)")
    ax.set_title(f"sky model: {sky.name} ({len(flux)} components)")
    show_image(axes[1, 0], output.psf, spec, "PSF (asinh stretch)", cmap="viridis")
    show_image(
        axes[1, 1],
        output.dirty,
        spec,
        f"dirty image ({output.algorithm}, {output.device}; asinh stretch)",
    )
    try:
        return save_figure(fig, path, dpi=90)
    finally:
        plt.close(fig)


def uv_density_panel(ax, output, nbins: int = 401) -> None:
    """Every uv sample of the first channel, both halves, as a log-count image (kλ).

    A 2-D histogram draws 10⁷ samples as fast as 10³, where a scatter of
    pixel markers costs Agg a second; tracks read as lines, as in the window.
    """
    from matplotlib.colors import LogNorm

    scale = output.freq_hz[0] / 299792458.0 / 1e3
    u, v = output.uv.u_m * scale, output.uv.v_m * scale
    half = float(max(np.abs(u).max(initial=0.0), np.abs(v).max(initial=0.0))) * 1.02 or 1.0
    edges = np.linspace(-half, half, nbins + 1)
    counts = np.histogram2d(np.concatenate([v, -v]), np.concatenate([u, -u]), [edges, edges])[0]
    counts[counts == 0] = np.nan  # empty cells stay background
    ax.imshow(
        counts,
        origin="lower",
        extent=(-half, half, -half, half),
        cmap="Blues",
        norm=LogNorm(vmin=1, vmax=max(np.nanmax(counts), 2.0)),
        interpolation="nearest",
    )
    ax.set_aspect("equal")
    ax.set_xlabel("u (kλ)")
    ax.set_ylabel("v (kλ)")


def _baselines(output) -> int:
    """Baselines of the array (every pair of antennas)."""
    nant = len(output.antennas.names) if output.antennas is not None else 0
    return nant * (nant - 1) // 2


def format_timing(timing: dict, nvis: int | None = None) -> str:
    """A plain-text table of stage → milliseconds."""
    total = sum(timing.values())
    lines = [f"{'stage':<14}{'ms':>12}{'share':>8}"]
    for stage, sec in timing.items():
        lines.append(f"{stage:<14}{sec * 1e3:>12.2f}{sec / total * 100 if total else 0:>7.1f}%")
    lines.append(f"{'total':<14}{total * 1e3:>12.2f}")
    if nvis:
        lines.append(f"visibilities: {nvis:,}")
    return "\n".join(lines)


def rx_figure(report: dict, path) -> Path:
    """Muscat's R(X) plot (§8.2.2, fig. 8.3) of ``bench aliasing --rx``, one panel per scan."""
    from uvlab.app.outputs.report import pyplot, save_figure

    plt = pyplot()
    scans = report["scans"]
    fig, axes = plt.subplots(1, len(scans), figsize=(6.4 * len(scans), 4.2), squeeze=False)
    styles = {
        "pruned-nn": ("tab:green", "o"),
        "hybrid": ("tab:orange", "s"),
        "conv": ("tab:blue", "^"),
        "conv exact": ("tab:gray", "."),
    }
    xs = np.asarray(report["xs"])
    floor = 1e-17  # R = 0 exactly (X = 0 of pruned-nn) drawn at the axis floor
    for ax, scan in zip(axes[0], scans):
        for label, vals in scan["r"].items():
            colour, marker = styles.get(label, ("k", "x"))
            ls = ":" if label == "conv exact" else "-"
            ax.semilogy(
                xs, np.maximum(vals, floor), ls, color=colour, marker=marker, ms=3, label=label
            )
        rk = scan["ranking"]
        ax.set_title(
            f"δ {scan['dec_deg']:+.0f}°, {scan['nvis']:.2e} records, "
            f"{report['npix']}², β = {report['beta']}\n"
            f"pruned-nn < hybrid < conv at {rk['holds']} of {rk['of']} X",
            fontsize=9,
        )
        ax.set_xlabel("X (source on pixel (X, X) from the centre)")
        ax.set_ylabel("R(X) = |1 − I(X, X)|")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(
        "R(X) in Muscat's setting (§8.2.2): PSWF S = 6 table, σ = 1, least-misfit S_z = 14",
        fontsize=10,
    )
    fig.tight_layout()
    try:
        return save_figure(fig, path, dpi=110)
    finally:
        plt.close(fig)
