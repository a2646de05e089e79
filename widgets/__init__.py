"""Thin pyqtgraph views for uvlab (STYLE §4): ``set_*`` methods in, Qt signals out.

Views hold no compute and know nothing of jobs. Each lives in its own module;
the names below are imported lazily so ``import uvlab.widgets`` stays cheap.
"""

from __future__ import annotations

import importlib

_VIEWS = {
    "SkyImageView": "image_view",
    "link_views": "image_links",
    "link_crosshairs": "image_links",
    "link_zoom": "image_links",
    "follow_zoom": "image_links",
    "UvCoverageView": "uv_coverage_view",
    "FourierPlaneView": "fourier_plane_view",
    "ArrayLayoutView": "array_layout_view",
    "TimingView": "timing_view",
    "AccuracyTimeView": "accuracy_time_view",
    "ProfilePlotView": "profile_view",
    "PrimaryBeamView": "primary_beam_view",
    "LogView": "log_view",
    "MetricsTable": "metrics_table",
    "StaleOverlay": "stale_overlay",
    "set_image_saver": "_save",
}

__all__ = sorted(_VIEWS)


def __getattr__(name: str):
    if name in _VIEWS:
        return getattr(importlib.import_module(f"uvlab.widgets.{_VIEWS[name]}"), name)
    raise AttributeError(f"module 'uvlab.widgets' has no attribute {name!r}")
