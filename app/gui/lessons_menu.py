"""Help → Lessons: each docs lesson's scenes in one click, and a "Try this" bar above the views.

The scenes come from :data:`uvlab.app.lab.lessons.LESSONS` (no Qt there). Loading
one applies its session to the window and runs it; the :class:`TipBar` then says
what to look at or change next, with a link to the lesson's page when the docs
are there (a source checkout).
"""

from __future__ import annotations

from collections.abc import Callable

from PyQt6 import QtCore, QtGui, QtWidgets

from uvlab.app.lab.lessons import LESSONS, Lesson, Scene

#: What the bar suggests before any lesson is loaded.
WELCOME = (
    "Try this: drag the Declination slider and watch the PSF stretch; click on the dirty "
    "image to add a source; Help → Lessons loads each lesson's scene."
)


class TipBar(QtWidgets.QFrame):
    """One or two lines of "what to try next", with the lesson's page and a close button."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.label = QtWidgets.QLabel(WELCOME)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextBrowserInteraction)
        self.label.setOpenExternalLinks(True)
        self.fix_button = QtWidgets.QPushButton()
        self.fix_button.hide()
        self.fix_button.clicked.connect(self._on_fix)
        self._fix: Callable[[], None] | None = None
        close = QtWidgets.QToolButton()
        close.setText("✕")
        close.setToolTip("Hide these hints (Help → Show hints brings them back)")
        close.setAutoRaise(True)
        close.clicked.connect(self.hide)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(6, 2, 2, 2)
        lay.addWidget(self.label, 1)
        lay.addWidget(self.fix_button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        lay.addWidget(close, 0, QtCore.Qt.AlignmentFlag.AlignTop)

    def show_tip(self, text: str, page=None) -> None:
        """Show ``text`` (plain), with a link to ``page`` (a Path) when given."""
        html = QtCore.Qt.convertFromPlainText(text, QtCore.Qt.WhiteSpaceMode.WhiteSpaceNormal)
        if page is not None:
            url = QtCore.QUrl.fromLocalFile(str(page)).toString()
            html += f' <a href="{url}">Read the lesson</a>'
        self.label.setText(html)
        self._set_fix(None, None)
        self.show()

    def show_fix(self, text: str, button: str, fix: Callable[[], None]) -> None:
        """Show a problem (plain ``text``) and a button that fixes it in one click."""
        self.label.setText(text)
        self._set_fix(button, fix)
        self.show()

    def clear_fix(self) -> None:
        """Take a fix away once its problem is gone (the text goes back to the welcome)."""
        if self._fix is not None:
            self._set_fix(None, None)
            self.label.setText(WELCOME)

    def has_fix(self) -> bool:
        return self._fix is not None

    def _set_fix(self, button: str | None, fix: Callable[[], None] | None) -> None:
        self._fix = fix
        self.fix_button.setText(button or "")
        self.fix_button.setVisible(fix is not None)

    def _on_fix(self) -> None:
        fix, self._fix = self._fix, None
        self._set_fix(None, None)
        self.label.setText(WELCOME)
        if fix is not None:
            fix()

    def text(self) -> str:
        return self.label.text()


def add_lessons_menu(
    menu: QtWidgets.QMenu, load: Callable[[Lesson, Scene], None]
) -> QtWidgets.QMenu:
    """Add *Lessons* to ``menu``: a submenu per lesson, an action per scene calling ``load``."""
    lessons = menu.addMenu("Lessons")
    for lesson in LESSONS:
        sub = lessons.addMenu(lesson.title)
        sub.setToolTipsVisible(True)
        for scene in lesson.scenes:
            action: QtGui.QAction = sub.addAction(scene.title)
            action.setToolTip(scene.try_this)
            action.triggered.connect(lambda _=False, le=lesson, sc=scene: load(le, sc))
    return lessons
