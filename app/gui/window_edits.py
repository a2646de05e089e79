"""The main window's answers to edits: in the panels, and on the views.

Every accepted edit stops Play, marks the on-demand views stale and schedules a
run (when *Run on every change* is on); the model has recorded it already
(:mod:`~uvlab.app.gui.window_model`). An observation edit moves a demo sky with the
phase centre and offers a declination the array can see; antennas are dragged on
the array view and point sources added by a click on an image.
:class:`EditActions` is an object the :class:`~uvlab.app.gui.main_window.MainWindow`
holds (``window.edits``); what it uses of the window is :class:`EditHost`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Protocol

from uvlab.app.lab.placement import demo_sky_for

if TYPE_CHECKING:
    from PyQt6 import QtWidgets

    from uvlab.app.gui.compare_mode import CompareMode
    from uvlab.app.gui.controller import Controller
    from uvlab.app.gui.lessons_menu import TipBar
    from uvlab.app.gui.panels import ImagingPanel, ObservationPanel, RunPanel, SkyPanel
    from uvlab.app.gui.views import ViewTabs
    from uvlab.app.gui.window_play import PlayActions


class EditHost(Protocol):
    """What :class:`EditActions` uses of the window that holds it."""

    obs_panel: ObservationPanel
    sky_panel: SkyPanel
    imaging_panel: ImagingPanel
    run_panel: RunPanel  # Run on every change
    views: ViewTabs
    compare: CompareMode
    controller: Controller
    tips: TipBar  # a one-click declination
    play: PlayActions

    def report_error(self, message: str) -> None: ...

    def statusBar(self) -> QtWidgets.QStatusBar: ...


class EditActions:
    """Edit slots of the main window.

    Parameters
    ----------
    window : EditHost
        The main window.
    """

    def __init__(self, window: EditHost) -> None:
        self._window = window

    def on_edit(self) -> None:
        """An accepted edit (or a state shown by Undo, Redo, Reset): Play stops, a run."""
        w = self._window
        if w.play.is_playing():  # the animation's own steps do not emit changed
            w.play.set_playing(False)
        w.views.aliasing_view.mark_stale()
        w.views.deconv_view.mark_stale()
        w.compare.mark_stale()
        if w.run_panel.autorun():
            w.controller.schedule()

    def on_observation_edit(self) -> None:
        """For each edit of the observation, before :meth:`on_edit` schedules the run.

        A sky laid out about the phase centre (a demo sky) moves with it, files
        stay put; a field below the elevation limit gets a one-click declination.
        """
        w = self._window
        if w.obs_panel.source() != "synthetic":
            w.tips.clear_fix()
            return
        try:
            spec = w.obs_panel.observation_spec(for_job=False)
        except ValueError:
            return
        sky = w.sky_panel.sky_model()
        moved = sky.moved_to(spec.ra_deg, spec.dec_deg)  # itself when absolute or unmoved
        if moved is not sky:
            # no emit: the model records it with this edit (one undo step), which runs
            w.sky_panel.set_sky_model(moved, keep_image=True)
        self._check_field_visible(spec)

    def on_array_chosen(self, _name: str) -> None:
        """Another array: when its site cannot see the field, point where it can, and say so."""
        from uvlab.app.observing.elevation import with_visible_declination

        w = self._window
        try:
            spec = w.obs_panel.observation_spec(for_job=False)
            moved, note = with_visible_declination(spec)
        except ValueError:
            return
        if moved.dec_deg != spec.dec_deg:
            w.obs_panel.set_declination(moved.dec_deg)  # the array's own edit runs it
        if note:
            w.statusBar().showMessage(note)
            w.views.log_view.append("warning", note)
            w.tips.show_tip(note)

    def _check_field_visible(self, spec) -> None:
        """Offer a one-click declination when the field is below the elevation limit."""
        from uvlab.app.observing.elevation import field_visibility, visible_declination_for

        w = self._window
        try:
            problem = field_visibility(spec)
            dec = visible_declination_for(spec) if problem else None
        except ValueError:
            return
        if problem is None or dec is None or dec == spec.dec_deg:
            w.tips.clear_fix()
            return
        w.tips.show_fix(
            f"{problem}.",
            f"Use Dec {dec:+g}°",
            lambda: w.obs_panel.set_declination(dec, emit=True),
        )
        w.statusBar().showMessage(problem)

    def show_layout(self) -> None:
        w = self._window
        if w.obs_panel.source() == "synthetic" and w.obs_panel.layout() is not None:
            w.views.set_antennas(w.obs_panel.layout())

    def on_antenna_moved(self, index: int, east: float, north: float) -> None:
        w = self._window
        if w.obs_panel.source() == "synthetic":
            w.obs_panel.move_antenna(index, east, north)
            return
        out = w.views.last_image  # a MeasurementSet's antennas stay where they are
        if out is not None and out.antennas is not None:
            w.views.set_antennas(out.antennas)
        w.statusBar().showMessage("The antennas of a MeasurementSet cannot be moved")

    def on_image_clicked(self, l: float, m: float) -> None:
        w = self._window
        out = w.views.last_image
        if out is None:
            return
        centre = w.sky_panel.sky_model().centre_deg  # a relative sky: about its own centre
        ra0, dec0 = (out.ra0_rad, out.dec0_rad) if centre is None else map(math.radians, centre)
        comp = w.sky_panel.add_point_at(l, m, ra0, dec0)
        if comp is not None:
            w.views.log_view.append(
                "info",
                f"added {comp.name} ({comp.stokes[0]:g} Jy) "
                f"at RA {comp.ra_deg:.5f}°, Dec {comp.dec_deg:.5f}°",
            )

    def field_of_view(self) -> float | None:
        """The last image's width, radians (None before the first image)."""
        w = self._window
        out = w.views.last_image
        return None if out is None else out.spec.npix * out.spec.cell_rad

    def placement(self) -> tuple[float, float, float]:
        w = self._window
        out = w.views.last_image
        if w.obs_panel.source() == "ms" and out is not None and out.source == "ms":
            return math.degrees(out.ra0_rad), math.degrees(out.dec0_rad), float(out.freq_hz[0])
        spec = w.obs_panel.observation_spec(for_job=False)
        return spec.ra_deg, spec.dec_deg, spec.freq_hz

    def use_demo_sky(self, name: str) -> None:
        """Replace the sky by a demo sky spread over the field of view."""
        w = self._window
        try:
            out = w.views.last_image
            if w.obs_panel.source() == "ms" and out is not None and out.source == "ms":
                from uvlab.app.skymodel import load_sky

                fov = math.degrees(out.spec.npix * out.spec.cell_rad) * 0.6
                ra, dec, f = self.placement()
                sky = load_sky(name, ra0_deg=ra, dec0_deg=dec, freq_hz=f, fov_deg=fov)
            else:
                sky = demo_sky_for(name, w.obs_panel.observation_spec(), w.imaging_panel.options())
        except ValueError as exc:
            w.report_error(f"cannot make demo sky {name!r}: {exc}")
            return
        w.sky_panel.set_sky_model(sky, emit=True)
