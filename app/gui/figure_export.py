"""Save figure…: the views as a captioned, high-resolution PNG, SVG or PDF for slides.

A view's *Save PNG…* grabs the screen's pixels; a figure is drawn anew with
matplotlib from the data the views hold: each image on its (l, m) axes in
arcmin (East to the left, DESIGN §1) with the view's colour map, stretch and
levels and a colour bar labelled in its units; uv samples and the Fourier
plane in kλ. Under the panels, a caption says what was computed (array,
declination, hour angles, frequency, weighting, algorithm, image size), from
the request whose result the views show. Nothing of the cursor is drawn, and
a stale picture (:mod:`uvlab.app.gui.stale`) is captioned as out of date.

The figure is rendered to memory and written atomically
(:func:`uvlab.app.outputs.atomic.write_bytes`); the format follows the file's suffix.
"""

from __future__ import annotations

import io
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from uvlab.widgets.image_geometry import image_extent

if TYPE_CHECKING:
    from uvlab.app.lab.jobs import JobRequest
    from uvlab.widgets import FourierPlaneView, SkyImageView, UvCoverageView

#: Suffix → matplotlib format.
FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
#: Dots per inch of a PNG figure (a 6-panel figure is then about 3000 px wide).
PNG_DPI = 200
#: Inches per panel (width and height, colour bar included).
PANEL_IN = (4.2, 3.6)
#: The file dialog's filter.
FILE_FILTER = "PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"


@dataclass(frozen=True)
class Panel:
    """One panel of a figure: an image on physical axes, or points.

    Attributes
    ----------
    title : str
    xlabel, ylabel : str
    image : (ny, nx) float or None
        Values already stretched as shown; ``image[0]`` is the bottom row.
    extent : (left, right, bottom, top)
        Axis coordinates of the image's outer edges (left > right: x inverted).
    cmap : (256, 4) uint8 or None
        The view's colour table.
    levels : (lo, hi)
        Colour limits, in the image's (stretched) values.
    units : str
        Colour-bar label.
    ticks : list of (position, label)
        Colour-bar ticks in stretched position with data-unit labels ([]: matplotlib's).
    points : (x, y) arrays or None
        Points drawn as dots over the image or alone.
    """

    title: str
    xlabel: str
    ylabel: str
    image: np.ndarray | None = None
    extent: tuple[float, float, float, float] = (0.0, 1.0, 0.0, 1.0)
    cmap: np.ndarray | None = None
    levels: tuple[float, float] = (0.0, 1.0)
    units: str = ""
    ticks: list = field(default_factory=list)
    points: tuple[np.ndarray, np.ndarray] | None = None


def image_panel(view: SkyImageView, title: str | None = None) -> Panel | None:
    """The panel of a sky image view as shown (None when it shows nothing)."""
    from uvlab.widgets._pg import get_colormap

    view.flush()
    if view.image() is None:
        return None
    (l_lo, l_hi), (m_lo, m_hi) = image_extent(view.spec())
    return Panel(
        title=title or view.title(),
        xlabel="l (arcmin), East ←",
        ylabel="m (arcmin), North ↑",
        image=np.asarray(view.image_item.image),
        extent=(l_hi, l_lo, m_lo, m_hi),  # the transform's x runs backwards: East left
        cmap=get_colormap(view.colormap()).getLookupTable(nPts=256, alpha=True),
        levels=view.levels(),
        units=view.color_bar.getAxis("left").labelText or view.units(),
        ticks=view.colorbar_ticks(),
    )


def uv_panel(view: UvCoverageView, title: str = "uv coverage") -> Panel | None:
    """The uv samples of a coverage view, in its units (None when empty)."""
    from uvlab.widgets.uv_coverage_view import UNITS

    x, y = view.points()
    if x.size == 0:
        return None
    unit = UNITS[view.units()]
    return Panel(title=title, xlabel=f"u ({unit})", ylabel=f"v ({unit})", points=(x, y))


def fourier_panel(view: FourierPlaneView, title: str = "|FT(sky)|, uv samples") -> Panel | None:
    """The Fourier plane: |FT(sky)| in dB below its peak, the samples over it, kλ."""
    from uvlab.widgets._pg import get_colormap

    view.flush()
    amp = view.amplitude()
    if amp is None:
        return None
    from uvlab.widgets.fourier_plane_view import FLOOR_DEX

    peak = float(amp.max()) if amp.size else 0.0
    with np.errstate(divide="ignore"):
        shown = np.log10(amp / peak) if peak > 0 else np.full(amp.shape, -FLOOR_DEX)
    n, k = amp.shape[0], view.du() / 1e3
    edge = (-(n // 2) - 0.5) * k
    u, v = view.uv_points()
    return Panel(
        title=title,
        xlabel="u (kλ)",
        ylabel="v (kλ)",
        image=10.0 * np.clip(shown, -FLOOR_DEX, 0.0),
        extent=(edge, edge + n * k, edge, edge + n * k),
        cmap=get_colormap("viridis").getLookupTable(nPts=256, alpha=True),
        levels=(-10.0 * FLOOR_DEX, 0.0),
        units="dB below the peak",
        points=(np.concatenate([u, -u]) / 1e3, np.concatenate([v, -v]) / 1e3),
    )


def caption_for(request: JobRequest | None, *, stale: str = "", units: tuple = ()) -> str:
    """One or two lines saying what the figure shows (from the request of its result).

    ``units`` are the panels' colour-bar units (named once each); ``stale``, a
    banner's text, goes first on a line of its own.
    """
    if request is None:
        return stale
    im = request.imaging
    weighting = im.weighting + (f" (robust {im.robust:g})" if im.weighting == "briggs" else "")
    if im.taper_arcsec:
        weighting += f", taper {im.taper_arcsec:g}″"
    parts = []
    obs = request.observation
    if obs is not None:
        layout = getattr(obs.layout, "name", obs.layout)
        parts.append(f"{layout}, Dec {obs.dec_deg:+.2f}°")
        if obs.ha_start_h is not None and obs.ha_stop_h is not None:
            hours = obs.ha_stop_h - obs.ha_start_h
            parts.append(f"HA {obs.ha_start_h:+g} h to {obs.ha_stop_h:+g} h ({hours:g} h)")
        elif obs.duration_h is not None:
            parts.append(f"{obs.duration_h:g} h")
        chans = f" × {obs.nchan} ch of {obs.chan_width_hz / 1e6:g} MHz" if obs.nchan > 1 else ""
        parts.append(f"{obs.freq_hz / 1e6:g} MHz{chans}")
    elif request.ms is not None:
        parts.append(f"MeasurementSet {Path(os.fspath(request.ms.path)).name}")
    cell = "" if im.cell_arcsec is None else f", cell {im.cell_arcsec:g}″"
    parts.append(f"{weighting} weighting, {im.algorithm} {im.npix}²{cell}")
    names = list(dict.fromkeys(u.split(" (")[0] for u in units if u))
    parts.append(f"units {', '.join(names)}" if names else "")
    parts.append("sky axes in arcmin (East left)")
    parts = [p for p in parts if p]
    text = "; ".join(parts)
    return f"{stale}\n{text}" if stale else text


def _draw_panel(fig, ax, panel: Panel) -> None:
    from matplotlib.colors import ListedColormap

    if panel.image is not None:
        cmap = ListedColormap(panel.cmap / 255.0) if panel.cmap is not None else None
        shown = ax.imshow(
            panel.image,
            origin="lower",
            extent=panel.extent,
            cmap=cmap,
            vmin=panel.levels[0],
            vmax=panel.levels[1],
            interpolation="nearest",
        )
        bar = fig.colorbar(shown, ax=ax, fraction=0.046, pad=0.03)
        bar.set_label(panel.units)
        lo, hi = panel.levels
        ticks = [(t, s) for t, s in panel.ticks if lo <= t <= hi]
        if ticks:
            bar.set_ticks([t for t, _ in ticks], labels=[s for _, s in ticks])
    if panel.points is not None:
        x, y = panel.points
        size = 0.5 if x.size > 20_000 else 2.0
        colour = "white" if panel.image is not None else "tab:blue"
        ax.scatter(x, y, s=size, c=colour, marker=".", linewidths=0, rasterized=x.size > 5000)
        if panel.image is None:
            lim = float(np.max(np.abs(np.concatenate([x, y])))) * 1.05 or 1.0
            ax.set_xlim(-lim, lim)
            ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.set_title(panel.title, fontsize=10)
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)


def render_figure(panels: list[Panel], caption: str, path: str | os.PathLike) -> Path:
    """Draw ``panels`` in a grid (up to 3 a row) with ``caption`` under them; write ``path``.

    Raises
    ------
    ValueError
        The suffix is not .png, .svg or .pdf, or there is nothing to draw (naming the file).
    OSError
        The file could not be written (naming it).
    """
    import matplotlib
    from matplotlib.figure import Figure

    from uvlab.app.outputs.atomic import write_bytes

    path = Path(path)
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(f"{path}: a figure is saved as .png, .svg or .pdf")
    if not panels:
        raise ValueError(f"{path}: no picture to save yet")
    ncols = min(3, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    lines = caption.count("\n") + 1
    fig = Figure(figsize=(PANEL_IN[0] * ncols, PANEL_IN[1] * nrows + 0.3 * lines))
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for ax, panel in zip(axes.flat, panels, strict=False):
        _draw_panel(fig, ax, panel)
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    fig.text(0.5, 0.01, caption, ha="center", va="bottom", fontsize=10, wrap=True)
    fig.tight_layout(rect=(0, 0.3 * lines / fig.get_figheight() + 0.01, 1, 1))
    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # SVG text stays editable text
        fig.savefig(buffer, format=fmt, dpi=PNG_DPI)
    return write_bytes(path, buffer.getvalue(), what="figure")
