"""The zoom of a sky image view: fitted to each new image until the user zooms.

Every :meth:`~uvlab.widgets.image_view.SkyImageView.set_image` shows the image
fitted to the view (exactly: the image's pixel-edge extent fills the limiting
axis, pixels stay square), or the view's default zoom
(:meth:`ZoomMixin.set_default_zoom`, :meth:`ZoomMixin.zoom_to`), until the user
zooms or pans with the mouse (the ViewBox's ``sigRangeChangedManually``). From
then on new images keep the user's range, until *Fit*
(:meth:`ZoomMixin.fit_to_image`) is pressed. Programmatic ranges never count as
a user zoom, except through :meth:`ZoomMixin.set_view_range` with
``by_user=True`` (for views that follow a user's zoom in another view).
"""

from __future__ import annotations

import numpy as np

from uvlab.widgets.image_geometry import ARCMIN, image_extent


class ZoomMixin:
    """Zoom methods of :class:`~uvlab.widgets.image_view.SkyImageView`.

    The view provides ``view_box``, ``zoom_reset``, ``_spec`` and the state
    ``_user_zoomed``, ``_zoom_fraction`` and ``_zoom_half_rad``.
    """

    def user_zoomed(self) -> bool:
        """Whether the user zoomed or panned since the last fit (new images keep the range)."""
        return self._user_zoomed

    def fit_to_image(self) -> None:
        """Show the whole image, exactly, and let new images be fitted again."""
        self._user_zoomed = False
        if self._spec is not None:
            xr, yr = image_extent(self._spec)
            self.view_box.setRange(xRange=xr, yRange=yr, padding=0)

    def zoom_to(self, half_width_rad: float) -> None:
        """Centre on (0, 0) and show ±``half_width_rad`` along the limiting axis.

        This becomes the view's default zoom: later images are shown at it
        too, until the user zooms (e.g. a PSF's inner sidelobes).
        """
        self.set_default_zoom(half_width_rad=half_width_rad)
        self._user_zoomed = False
        self._apply_zoom()

    def set_default_zoom(
        self, fraction: float | None = None, *, half_width_rad: float | None = None
    ) -> None:
        """How each new image is shown until the user zooms.

        Parameters
        ----------
        fraction : float, optional
            Show ±``fraction`` of the image's half-width around (0, 0).
        half_width_rad : float, optional
            Show ±``half_width_rad`` around (0, 0) (direction cosines).
            With neither, the whole image is fitted (the default).
        """
        if fraction is not None and half_width_rad is not None:
            raise ValueError("give a fraction or a half-width, not both")
        for name, val in (("fraction", fraction), ("half_width_rad", half_width_rad)):
            if val is not None and not (np.isfinite(val) and val > 0):
                raise ValueError(f"{name} must be positive, got {val!r}")
        self._zoom_fraction = None if fraction is None else float(fraction)
        self._zoom_half_rad = None if half_width_rad is None else float(half_width_rad)
        if not self._user_zoomed:
            self._apply_zoom()

    def set_view_range(self, x_range, y_range, *, by_user: bool = False) -> None:
        """Show (l, m) arcmin ranges; ``by_user`` counts it as the user's zoom.

        A view that follows a user's zoom in a linked view should pass
        ``by_user=True`` so that its next image keeps the range too.
        """
        self.view_box.setRange(xRange=tuple(x_range), yRange=tuple(y_range), padding=0)
        if by_user:
            self._user_zoomed = True

    def _apply_zoom(self) -> None:
        if self._spec is None:
            return
        half = None
        if self._zoom_half_rad is not None:
            half = self._zoom_half_rad / ARCMIN
        elif self._zoom_fraction is not None:
            half = self._zoom_fraction * self._spec.npix / 2 * self._spec.cell_rad / ARCMIN
        if half is None:
            xr, yr = image_extent(self._spec)
        else:
            xr = yr = (-half, half)
        self.view_box.setRange(xRange=xr, yRange=yr, padding=0)

    def _on_user_range(self, _mask) -> None:
        self._user_zoomed = True

    def _on_fit_clicked(self) -> None:
        self.fit_to_image()
        self.zoom_reset.emit()
