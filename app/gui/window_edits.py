"""The main window's answers to edits: in the panels, and on the views.

Every accepted edit stops Play, marks the on-demand views stale and schedules a
run (when *Run on every change* is on). An observation edit moves a demo sky
with the phase centre and offers a declination the array can see; antennas are
dragged on the array view and point sources added by a click on an image.
"""

from __future__ import annotations

import math

from uvlab.app.lab.placement import demo_sky_for


class EditsMixin:
    """Edit slots of :class:`~uvlab.app.gui.main_window.MainWindow`.

    The window provides the panels, ``views``, ``compare``, ``controller``,
    ``tips``, ``statusBar``, ``set_playing``, ``report_error`` and the state
    ``_playing``.
    """

    def _on_edit(self) -> None:
        self.record_edit()  # the panels' state becomes the model's (an undo step)
        if self._playing:  # the animation's own steps do not emit changed
            self.set_playing(False)
        self.views.aliasing_view.mark_stale()
        self.views.deconv_view.mark_stale()
        self.compare.mark_stale()
        if self.run_panel.autorun():
            self.controller.schedule()

    def _on_observation_edit(self) -> None:
        """For each edit of the observation, before :meth:`_on_edit` schedules the run.

        A sky laid out about the phase centre (a demo sky) moves with it, files
        stay put; a field below the elevation limit gets a one-click declination.
        """
        if self.obs_panel.source() != "synthetic":
            self.tips.clear_fix()
            return
        try:
            spec = self.obs_panel.observation_spec(for_job=False)
        except ValueError:
            return
        sky = self.sky_panel.sky_model()
        moved = sky.moved_to(spec.ra_deg, spec.dec_deg)  # itself when absolute or unmoved
        if moved is not sky:
            # no emit: this edit already schedules a run
            self.sky_panel.set_sky_model(moved, keep_image=True)
        self._check_field_visible(spec)

    def _on_array_chosen(self, _name: str) -> None:
        """Another array: when its site cannot see the field, point where it can, and say so."""
        from uvlab.app.observing.elevation import with_visible_declination

        try:
            spec = self.obs_panel.observation_spec(for_job=False)
            moved, note = with_visible_declination(spec)
        except ValueError:
            return
        if moved.dec_deg != spec.dec_deg:
            self.obs_panel.set_declination(moved.dec_deg)  # the array's own edit runs it
        if note:
            self.statusBar().showMessage(note)
            self.views.log_view.append("warning", note)
            self.tips.show_tip(note)

    def _check_field_visible(self, spec) -> None:
        """Offer a one-click declination when the field is below the elevation limit."""
        from uvlab.app.observing.elevation import field_visibility, visible_declination_for

        try:
            problem = field_visibility(spec)
            dec = visible_declination_for(spec) if problem else None
        except ValueError:
            return
        if problem is None or dec is None or dec == spec.dec_deg:
            self.tips.clear_fix()
            return
        self.tips.show_fix(
            f"{problem}.",
            f"Use Dec {dec:+g}°",
            lambda: self.obs_panel.set_declination(dec, emit=True),
        )
        self.statusBar().showMessage(problem)

    def _show_layout(self) -> None:
        if self.obs_panel.source() == "synthetic" and self.obs_panel.layout() is not None:
            self.views.set_antennas(self.obs_panel.layout())

    def _on_antenna_moved(self, index: int, east: float, north: float) -> None:
        if self.obs_panel.source() == "synthetic":
            self.obs_panel.move_antenna(index, east, north)
            return
        out = self.views.last_image  # a MeasurementSet's antennas stay where they are
        if out is not None and out.antennas is not None:
            self.views.set_antennas(out.antennas)
        self.statusBar().showMessage("The antennas of a MeasurementSet cannot be moved")

    def _on_image_clicked(self, l: float, m: float) -> None:
        out = self.views.last_image
        if out is None:
            return
        centre = self.sky_panel.sky_model().centre_deg  # a relative sky: about its own centre
        ra0, dec0 = (out.ra0_rad, out.dec0_rad) if centre is None else map(math.radians, centre)
        comp = self.sky_panel.add_point_at(l, m, ra0, dec0)
        if comp is not None:
            self.views.log_view.append(
                "info",
                f"added {comp.name} ({comp.stokes[0]:g} Jy) "
                f"at RA {comp.ra_deg:.5f}°, Dec {comp.dec_deg:.5f}°",
            )

    def _field_of_view(self) -> float | None:
        """The last image's width, radians (None before the first image)."""
        out = self.views.last_image
        return None if out is None else out.spec.npix * out.spec.cell_rad

    def _placement(self) -> tuple[float, float, float]:
        out = self.views.last_image
        if self.obs_panel.source() == "ms" and out is not None and out.source == "ms":
            return math.degrees(out.ra0_rad), math.degrees(out.dec0_rad), float(out.freq_hz[0])
        spec = self.obs_panel.observation_spec(for_job=False)
        return spec.ra_deg, spec.dec_deg, spec.freq_hz

    def use_demo_sky(self, name: str) -> None:
        """Replace the sky by a demo sky spread over the field of view."""
        try:
            out = self.views.last_image
            if self.obs_panel.source() == "ms" and out is not None and out.source == "ms":
                from uvlab.app.skymodel import load_sky

                fov = math.degrees(out.spec.npix * out.spec.cell_rad) * 0.6
                ra, dec, f = self._placement()
                sky = load_sky(name, ra0_deg=ra, dec0_deg=dec, freq_hz=f, fov_deg=fov)
            else:
                sky = demo_sky_for(
                    name, self.obs_panel.observation_spec(), self.imaging_panel.options()
                )
        except ValueError as exc:
            self.report_error(f"cannot make demo sky {name!r}: {exc}")
            return
        self.sky_panel.set_sky_model(sky, emit=True)
