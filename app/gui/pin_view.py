"""The *Pinned* tab: a state kept aside, its dirty image beside the one shown now.

A lecturer pins a state (Edit → Pin this state, Ctrl+P, or the tab's button): its dirty
image, its caption (array, declination, hours, frequency, weighting, algorithm) and the
lab state itself. From then on the tab shows the pinned image on the left and each new
dirty image on the right, on the same zoom and crosshair, so that two states are
compared side by side (natural against uniform, KAT-7 against MeerKAT). *Restore the
pinned state* makes it the lab's state again (an undoable edit). Only a current image is
pinned: while the views are stale (a job running or failed) pinning is refused, since the
image would not be of the settings pinned with it.
"""

from __future__ import annotations

from PyQt6 import QtCore, QtWidgets

from uvlab.app.gui.boxes import boxed
from uvlab.app.gui.figure_export import caption_for
from uvlab.widgets import SkyImageView, link_crosshairs, link_zoom

NOTHING_PINNED = "Nothing pinned yet: Edit → Pin this state (Ctrl+P) keeps the image shown."


def _title(out) -> str:
    return f"{out.algorithm}, {out.spec.npix}², {out.spec.cell_arcsec:.3g}″ cells"


class PinView(QtWidgets.QWidget):
    """The pinned dirty image and the current one, side by side, with their captions."""

    pin_requested = QtCore.pyqtSignal()
    restore_requested = QtCore.pyqtSignal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.pinned_view = SkyImageView(colormap="inferno")
        self.now_view = SkyImageView(colormap="inferno")
        link_zoom(self.pinned_view, self.now_view)
        link_crosshairs(self.pinned_view, self.now_view)
        self.pinned_caption = QtWidgets.QLabel(NOTHING_PINNED)
        self.now_caption = QtWidgets.QLabel("")
        for label in (self.pinned_caption, self.now_caption):
            label.setWordWrap(True)
        pin = QtWidgets.QPushButton("Pin this state")
        pin.setToolTip("Keep the image shown and its settings on the left (Ctrl+P)")
        self.restore_button = QtWidgets.QPushButton("Restore the pinned state")
        self.restore_button.setToolTip("Make the pinned settings the lab's again (Undo goes back)")
        self.restore_button.setEnabled(False)
        pin.clicked.connect(self.pin_requested)
        self.restore_button.clicked.connect(self.restore_requested)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(pin)
        row.addWidget(self.restore_button)
        row.addStretch(1)
        images = QtWidgets.QHBoxLayout()
        for title, view, caption in (
            ("Pinned", self.pinned_view, self.pinned_caption),
            ("Now", self.now_view, self.now_caption),
        ):
            column = QtWidgets.QVBoxLayout()
            column.addWidget(boxed(title, view), 1)
            column.addWidget(caption)
            images.addLayout(column, 1)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(row)
        lay.addLayout(images, 1)
        #: The lab state pinned (a LabState), or None.
        self.pinned_state = None

    def pin(self, out, request, state) -> None:
        """Keep ``out`` (an ImageOutput), the request that made it and the lab ``state``."""
        self.pinned_state = state
        self.pinned_view.set_image(out.dirty, out.spec, out.ra0_rad, out.dec0_rad,
                                   title=_title(out))  # fmt: skip
        self.pinned_caption.setText(caption_for(request))
        self.restore_button.setEnabled(True)
        self.follow(out, request)

    def follow(self, out, request) -> None:
        """Show ``out``, the newest dirty image, on the right: drawn now if the tab is
        shown, else when it next shows (a view draws deferred data only on a show event,
        so a result arriving while the tab was in front left the old picture drawn under
        the new caption)."""
        self.now_view.set_image(out.dirty, out.spec, out.ra0_rad, out.dec0_rad,
                                title=_title(out), defer=True)  # fmt: skip
        if self.now_view.isVisible():
            self.now_view.flush()
        self.now_caption.setText(caption_for(request))
