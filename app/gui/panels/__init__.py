"""The control panels of the main window: observation, instrument, sky model, imaging, run."""

from __future__ import annotations

from uvlab.app.gui.panels.imaging_panel import ImagingPanel
from uvlab.app.gui.panels.instrument_panel import InstrumentPanel
from uvlab.app.gui.panels.observation_panel import ObservationPanel
from uvlab.app.gui.panels.run_panel import RunPanel
from uvlab.app.gui.panels.sky_panel import SkyPanel

__all__ = ["ImagingPanel", "InstrumentPanel", "ObservationPanel", "RunPanel", "SkyPanel"]
