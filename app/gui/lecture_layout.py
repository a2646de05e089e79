"""The lecture layout: six pictures on one screen, large and equal, for a projector.

*View → Lecture layout* (Ctrl+Shift+L) or ``uvlab gui --lecture`` shows the sky
(model or picture), its Fourier plane, the uv coverage, the PSF, the dirty image
and the CLEAN restored image in a 3 × 2 grid, under one strip of the controls a
lecture needs: array, declination, hour angles, Play, CLEAN, Save figure… and
the font size. The window fills the screen and the controls dock is hidden;
the theme is light (dark text on white, for projectors); F11 toggles full
screen and Ctrl+= / Ctrl+− scale the fonts. Leaving it puts everything back.

The six views are the window's own (moved into the grid and back), so results,
zoom and crosshair links and stale marks (:mod:`uvlab.app.gui.stale`) follow
them. The strip's fields mirror the Observation panel's: an edit in either
shows in both and runs the job as the panel's own edits do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PyQt6 import QtCore, QtGui, QtWidgets

from uvlab.app.gui.figure_export import fourier_panel, image_panel, uv_panel
from uvlab.app.gui.panels.fields import SliderSpin
from uvlab.app.gui.screen_fit import available_geometry
from uvlab.widgets._pg import pg

if TYPE_CHECKING:
    from uvlab.app.gui.main_window import MainWindow

#: Font sizes (pt) Ctrl+= and Ctrl+− step through; the layout opens at LECTURE_PT.
FONT_PT = (9, 10, 11, 12, 14, 16, 18, 20, 24)
LECTURE_PT = 11
#: The grid, row by row: the sky and what the array measures of it, then what is imaged.
GRID = (("sky_view", "fourier_view", "uv_view"), ("psf_view", "dirty_view", "restored_view"))
PLACEHOLDER = "Shown in the lecture layout (View → Lecture layout to leave it)"


class _Cell(QtWidgets.QWidget):
    """A grid cell that asks for no room of its own, so that the grid's stretch alone decides.

    The views' word-wrapped notes make them height-for-width, and their size
    hints differ; in a cell every view gets the same share.
    """

    def __init__(self, view: QtWidgets.QWidget):
        super().__init__()
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSizeConstraint(QtWidgets.QLayout.SizeConstraint.SetNoConstraint)
        lay.addWidget(view)
        ignored = QtWidgets.QSizePolicy.Policy.Ignored
        self.setSizePolicy(ignored, ignored)

    def hasHeightForWidth(self) -> bool:  # Qt override
        return False

    def sizeHint(self) -> QtCore.QSize:  # Qt override
        return QtCore.QSize(100, 100)

    def minimumSizeHint(self) -> QtCore.QSize:  # Qt override
        return QtCore.QSize(1, 1)


def _swap(old: QtWidgets.QWidget, new: QtWidgets.QWidget) -> None:
    """Put ``new`` where ``old`` is (in a splitter, a tab or a layout); ``old`` is detached."""
    parent = old.parentWidget()
    if isinstance(parent, QtWidgets.QSplitter):
        parent.replaceWidget(parent.indexOf(old), new)
    elif isinstance(parent, QtWidgets.QStackedWidget) and isinstance(
        parent.parentWidget(), QtWidgets.QTabWidget
    ):
        tabs = parent.parentWidget()
        index = tabs.indexOf(old)
        text, current = tabs.tabText(index), tabs.currentIndex()
        tabs.removeTab(index)
        tabs.insertTab(index, new, text)
        tabs.setCurrentIndex(current)
    else:
        parent.layout().replaceWidget(old, new)
    old.setParent(None)


def _mirror(source: SliderSpin, copy: SliderSpin) -> None:
    """Keep ``copy`` showing ``source``'s value; an edit of ``copy`` is an edit of ``source``."""
    copy.set_value(source.value())
    source.spin.valueChanged.connect(copy.set_value)
    copy.value_changed.connect(source.spin.setValue)


#: The least width of the strip's sliders, and of its array list, in characters.
SLIDER_CHARS, ARRAY_CHARS = 7, 8


def _fit_combos(view: QtWidgets.QWidget) -> None:
    """Let ``view``'s lists widen to their items in its font now.

    A view's tool row caps each list at its width in the font it was built with; in the
    lecture's larger font "asinh" was cut to "asinł". Recomputed on every font change
    (and back on leaving).
    """
    policies = QtWidgets.QComboBox.SizeAdjustPolicy
    for box in view.findChildren(QtWidgets.QComboBox):
        before = box.sizeAdjustPolicy()
        box.setSizeAdjustPolicy(policies.AdjustToContents)
        box.setMaximumWidth(box.sizeHint().width())
        box.setSizeAdjustPolicy(before)


class LectureStrip(QtWidgets.QWidget):
    """The lecture's controls in one row, mirroring the window's."""

    def __init__(self, window: MainWindow):
        super().__init__()
        obs = window.obs_panel
        self.array_combo = QtWidgets.QComboBox()
        self.array_combo.setModel(obs.layout_combo.model())  # the same arrays
        self.array_combo.setCurrentIndex(obs.layout_combo.currentIndex())
        obs.layout_combo.currentIndexChanged.connect(self.array_combo.setCurrentIndex)
        self.array_combo.activated.connect(
            lambda i: (obs.layout_combo.setCurrentIndex(i), obs.layout_combo.activated.emit(i))
        )
        self.dec = SliderSpin(-90.0, 90.0, 0.5, obs.dec.value(), decimals=2, suffix=" °")
        self.ha_start = SliderSpin(-12.0, 12.0, 0.25, obs.ha_start.value(), suffix=" h")
        self.ha_stop = SliderSpin(-12.0, 12.0, 0.25, obs.ha_stop.value(), suffix=" h")
        for source, copy in ((obs.dec, self.dec), (obs.ha_start, self.ha_start)):
            _mirror(source, copy)
        _mirror(obs.ha_stop, self.ha_stop)
        play = window.run_panel.play_button
        self.play_button = QtWidgets.QPushButton(play.text())
        self.play_button.setCheckable(True)
        self.play_button.setToolTip(play.toolTip())
        self.play_button.clicked.connect(lambda on: play.setChecked(on))
        play.toggled.connect(self._follow_play)
        self.clean_button = QtWidgets.QPushButton("CLEAN")
        self.clean_button.setToolTip("CLEAN the dirty image (Ctrl+L): the restored image")
        self.clean_button.clicked.connect(lambda: window.controller.submit("clean"))
        self.figure_button = QtWidgets.QPushButton("Save figure…")
        self.figure_button.setToolTip("The six pictures as one captioned PNG, SVG or PDF")
        self.smaller_button = QtWidgets.QToolButton(text="A−")
        self.smaller_button.setToolTip("Smaller text (Ctrl+−)")
        self.larger_button = QtWidgets.QToolButton(text="A+")
        self.larger_button.setToolTip("Larger text (Ctrl+=)")
        self.leave_button = QtWidgets.QPushButton("Leave")
        self.leave_button.setToolTip("Back to the full window (Ctrl+Shift+L)")
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        for label, widget, stretch in (
            ("Array", self.array_combo, 0),
            ("Dec", self.dec, 2),
            ("HA from", self.ha_start, 1),
            ("to", self.ha_stop, 1),
        ):
            lay.addWidget(QtWidgets.QLabel(label))
            lay.addWidget(widget, stretch)
        for button in (
            self.play_button,
            self.clean_button,
            self.figure_button,
            self.smaller_button,
            self.larger_button,
            self.leave_button,
        ):
            lay.addWidget(button)
        for spin in (self.dec, self.ha_start, self.ha_stop):
            spin.spin.setMinimumWidth(0)
            # a slider a hand can drag: at 1280×720 the hour-angle ones were squeezed to
            # a 12 px stub while Dec's took the rest (stretch 2 : 1 : 1 of the whole)
            spin.slider.setMinimumWidth(SLIDER_CHARS * self.fontMetrics().averageCharWidth())
        # as wide as an array's name, not as "Layout file…" (the list shows it whole)
        adjust = QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        self.array_combo.setSizeAdjustPolicy(adjust)
        self.array_combo.setMinimumContentsLength(ARRAY_CHARS)

    def _follow_play(self, on: bool) -> None:
        self.play_button.setChecked(on)
        self.play_button.setText("■ Stop" if on else "▶ Play")


class LectureLayout(QtCore.QObject):
    """Switch ``window`` between its full layout and the lecture layout.

    Attributes
    ----------
    action : QAction
        *View → Lecture layout*, checkable (Ctrl+Shift+L).
    page : QWidget or None
        The lecture page while it is shown.
    """

    def __init__(self, window: MainWindow, menu: QtWidgets.QMenu):
        super().__init__(window)
        self._window = window
        self.page: QtWidgets.QWidget | None = None
        self.strip: LectureStrip | None = None
        self._saved: dict = {}
        self.font_pt = LECTURE_PT
        self.action = menu.addAction("Lecture layout")
        self.action.setCheckable(True)
        self.action.setShortcut(QtGui.QKeySequence("Ctrl+Shift+L"))
        self.action.setToolTip("Six large pictures and the lecture's controls on one screen")
        self.action.toggled.connect(self.set_on)
        full = menu.addAction("Full screen")
        full.setShortcut(QtGui.QKeySequence("F11"))
        full.triggered.connect(self.toggle_full_screen)
        for text, keys, step in (
            ("Larger text", ("Ctrl+=", "Ctrl++"), 1),
            ("Smaller text", ("Ctrl+-",), -1),
        ):
            act = menu.addAction(text)
            act.setShortcuts([QtGui.QKeySequence(k) for k in keys])
            act.triggered.connect(lambda _=False, step=step: self.step_font(step))

    # --------------------------------------------------------------- state
    def is_on(self) -> bool:
        return self.page is not None

    def views(self) -> dict[str, QtWidgets.QWidget]:
        """The six views by name (``restored_view`` is the Deconvolution tab's)."""
        v = self._window.views
        return {
            name: v.deconv_view.restored_view if name == "restored_view" else getattr(v, name)
            for row in GRID
            for name in row
        }

    def set_on(self, on: bool) -> None:
        """Show the lecture layout (True) or the full window (False)."""
        if on != self.is_on():
            self._enter() if on else self._leave()
        with QtCore.QSignalBlocker(self.action):
            self.action.setChecked(on)

    def toggle_full_screen(self) -> None:
        w = self._window
        w.showNormal() if w.isFullScreen() else w.showFullScreen()

    def step_font(self, step: int) -> None:
        """One size larger (+1) or smaller (−1) in :data:`FONT_PT`; only in the lecture layout."""
        if not self.is_on():
            return
        k = min(range(len(FONT_PT)), key=lambda i: abs(FONT_PT[i] - self.font_pt))
        self.font_pt = FONT_PT[max(0, min(len(FONT_PT) - 1, k + step))]
        self._apply_font()

    # ------------------------------------------------------------- enter / leave
    def _enter(self) -> None:
        w = self._window
        self.strip = LectureStrip(w)
        self.strip.figure_button.clicked.connect(self.ask_save_figure)
        self.strip.larger_button.clicked.connect(lambda: self.step_font(1))
        self.strip.smaller_button.clicked.connect(lambda: self.step_font(-1))
        self.strip.leave_button.clicked.connect(lambda: self.set_on(False))
        grid = QtWidgets.QGridLayout()
        grid.setSpacing(4)
        views = self.views()
        self._saved = {"dock": w.dock.isVisible(), "placeholders": {}, "geometry": w.geometry()}
        for r, row in enumerate(GRID):
            for c, name in enumerate(row):
                holder = QtWidgets.QLabel(PLACEHOLDER)
                holder.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
                _swap(views[name], holder)
                self._saved["placeholders"][name] = holder
                self._saved[name] = (views[name].sizePolicy(), views[name].minimumSize())
                # equal cells, whatever each view's size hint: the grid's stretch decides
                ignored = QtWidgets.QSizePolicy.Policy.Ignored
                views[name].setSizePolicy(ignored, ignored)
                views[name].setMinimumSize(1, 1)
                grid.addWidget(_Cell(views[name]), r, c)
                grid.setColumnStretch(c, 1)
            grid.setRowStretch(r, 1)
        self.page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(self.page)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.strip)
        lay.addLayout(grid, 1)
        self._saved["centre"] = w.takeCentralWidget()
        w.setCentralWidget(self.page)
        w.dock.hide()
        if not w.isFullScreen():  # the whole screen, as a projector shows it
            w.setGeometry(available_geometry(w))
        self._theme(light=True)
        self._apply_font()
        for view in views.values():
            view.show()

    def _leave(self) -> None:
        w = self._window
        views = self.views()
        self._theme(light=False)
        for name, holder in self._saved["placeholders"].items():
            view = views[name]
            view.setFont(QtGui.QFont())
            _fit_combos(view)
            policy, minimum = self._saved[name]
            view.setSizePolicy(policy)
            view.setMinimumSize(minimum)
            _swap(holder, view)
            view.show()
        w.takeCentralWidget()  # the page: deleted below, the views are back home
        w.setCentralWidget(self._saved["centre"])
        w.dock.setVisible(self._saved["dock"])
        if not w.isFullScreen():
            w.setGeometry(self._saved["geometry"])
        self.page.deleteLater()
        self.page = self.strip = None
        self._saved = {}

    # ------------------------------------------------------------ look
    def _theme(self, light: bool) -> None:
        """Dark text on white (light) or pyqtgraph's own colours, on the six views."""
        background = "w" if light else pg.getConfigOption("background")
        foreground = "k" if light else pg.getConfigOption("foreground")
        if self.page is not None:
            palette = QtGui.QPalette(QtGui.QColor("white")) if light else QtGui.QPalette()
            palette.setColor(QtGui.QPalette.ColorRole.WindowText, QtGui.QColor("black"))
            self.page.setPalette(palette)
            self.page.setAutoFillBackground(light)
        for view in self.views().values():
            view.plot_widget.setBackground(background)
            item = view.plot_item
            axes = [item.getAxis(name) for name in ("left", "bottom")]
            if hasattr(view, "color_bar"):
                axes.append(view.color_bar.axis)
            for axis in axes:
                axis.setPen(foreground)
                axis.setTextPen(foreground)
            item.titleLabel.setAttr("color", pg.mkColor(foreground).name())
            item.titleLabel.setText(item.titleLabel.text)

    def _apply_font(self) -> None:
        font = QtGui.QFont(self.page.font())
        font.setPointSize(self.font_pt)
        self.page.setFont(font)
        for view in self.views().values():
            view.setFont(font)
            item = view.plot_item
            axes = [item.getAxis(name) for name in ("left", "bottom")]
            if hasattr(view, "color_bar"):
                axes.append(view.color_bar.axis)
            for axis in axes:
                axis.setStyle(tickFont=font)
                axis.label.setFont(font)
            item.titleLabel.item.setFont(font)
            _fit_combos(view)

    # ------------------------------------------------------------ figure
    def panels(self) -> list:
        """The six pictures as figure panels (empty ones None), in grid order."""
        views = self.views()
        return [
            image_panel(views["sky_view"], "Sky"),
            fourier_panel(views["fourier_view"]),
            uv_panel(views["uv_view"]),
            image_panel(views["psf_view"], "PSF"),
            image_panel(views["dirty_view"], "Dirty image"),
            image_panel(views["restored_view"], "CLEAN restored image"),
        ]

    def ask_save_figure(self) -> None:
        self._window.figures.ask_save(self.panels(), "lecture")
