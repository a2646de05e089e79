"""The comparison report (app/outputs/report.py): every map drawn on its own field of view."""

from __future__ import annotations

import numpy as np
import pytest

from uvlab.app.lab.compare import compare_algorithms
from uvlab.gpu.image_spec import ARCSEC, ImageSpec

NPIX = 64
CELL_ARCSEC = 60.0
#: The point source's pixel (j, i): on every 4th pixel, so the subsampled reference holds it.
SOURCE = (NPIX // 2 + 8, NPIX // 2 - 12)


def point_source_data(spec: ImageSpec):
    """Random baselines (one channel) seeing a 1 Jy point at pixel SOURCE."""
    rng = np.random.default_rng(11)
    freq = np.array([1.4e9])
    r, phi = 240.0 * np.sqrt(rng.random(3000)), 2 * np.pi * rng.random(3000)
    uvw = np.stack([r * np.cos(phi), r * np.sin(phi), np.zeros_like(r)], axis=1)
    u, v = (uvw[:, :2] * freq[0] / 299792458.0).T
    l0, m0 = spec.l_axis()[SOURCE[1]], spec.m_axis()[SOURCE[0]]
    vis = np.exp(2j * np.pi * (u * l0 + v * m0))[:, None]
    return uvw, freq, vis, (l0, m0)


def drawn_peak(ax) -> tuple[float, float]:
    """(x, y) in the axes' data units of the centre of the drawn image's brightest pixel."""
    image = ax.images[0]
    data = np.asarray(image.get_array())
    j, i = np.unravel_index(np.argmax(data), data.shape)
    x0, x1, y0, y1 = image.get_extent()
    ny, nx = data.shape
    return x0 + (i + 0.5) * (x1 - x0) / nx, y0 + (j + 0.5) * (y1 - y0) / ny


@pytest.mark.parametrize("step", [1, 4])
def test_every_map_spans_the_field_of_view_and_shows_the_source_where_it_is(step):
    """Issue 28: a subsampled reference was drawn 1/k of the field wide (±0.5′ for ±8′)."""
    from uvlab.app.outputs.report import pyplot, report_figure

    spec = ImageSpec(NPIX, CELL_ARCSEC * ARCSEC)
    uvw, freq, vis, (l0, m0) = point_source_data(spec)
    cmp = compare_algorithms(
        uvw, freq, vis, np.ones_like(vis.real), spec, algorithms=["conv", "nn"], step=step,
        device="cpu",
    )  # fmt: skip
    assert cmp.reference.shape == (NPIX // step,) * 2
    fig = report_figure(cmp)
    try:
        maps = [ax for ax in fig.axes if ax.images and ax.get_xlabel().startswith("l ")]
        assert len(maps) == 1 + 2 * 2  # the reference, then each entry's image and error map
        fov = NPIX * CELL_ARCSEC / 60  # arcmin
        source = tuple(np.degrees([l0, m0]) * 60)  # x is l (east to the left), arcmin
        for ax in maps:
            x0, x1, y0, y1 = ax.images[0].get_extent()
            assert (x0 - x1, y1 - y0) == pytest.approx((fov, fov))
            assert sorted(ax.get_xlim()) == pytest.approx(sorted((x0, x1)))
            assert sorted(ax.get_ylim()) == pytest.approx(sorted((y0, y1)))
            assert ax.get_xlim()[0] > ax.get_xlim()[1]  # east to the left
        # the reference and the entries' images put the source at its (l, m)
        for ax in maps[:1] + maps[1::2]:
            assert drawn_peak(ax) == pytest.approx(source, abs=1e-9), ax.get_title()
    finally:
        pyplot().close(fig)


def test_a_map_on_another_maps_geometry_is_refused():
    from uvlab.app.outputs.report import pyplot, show

    fig, ax = pyplot().subplots()
    try:
        with pytest.raises(ValueError, match="16² image"):
            show(ax, np.zeros((4, 4)), ImageSpec(16, ARCSEC), "reference")
    finally:
        pyplot().close(fig)


def test_a_centre_crop_spans_its_own_field():
    """``--size W H``'s preview: a crop of W × H about the image's centre, its pixel
    (H//2, W//2) at l = m = 0, the extent W and H cells wide."""
    from uvlab.app.outputs.report import image_extent_arcmin, pyplot, show

    spec = ImageSpec(16, 60 * ARCSEC)  # 1′ cells
    assert image_extent_arcmin(spec, (4, 6)) == pytest.approx((3.5, -2.5, -2.5, 1.5))
    fig, ax = pyplot().subplots()
    try:
        show(ax, np.zeros((4, 6)), spec, "cropped", cropped=True)
        assert ax.get_xlim() == pytest.approx((3.5, -2.5))
        with pytest.raises(ValueError, match="16² image"):
            show(ax, np.zeros((4, 6)), spec, "not said to be cropped")
        with pytest.raises(ValueError, match="16² image"):
            show(ax, np.zeros((20, 6)), spec, "larger", cropped=True)
    finally:
        pyplot().close(fig)
