"""Help → Lessons: each docs lesson's scenes in one click, and a "Try this" bar above the views.

The scenes come from :data:`uvlab.app.lab.lessons.LESSONS` (no Qt there). Loading
one applies its session to the window and runs it; the :class:`TipBar` then says
what to look at or change next, with a link to the lesson's page when the docs
are there (a source checkout).

The bar keeps one height whatever it says: that of the tallest of the welcome and
every lesson's hint at its width (or of a longer text once shown, until the width
changes), so the views below never jump from one lesson step to the next.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PyQt6 import QtCore, QtGui, QtWidgets

from uvlab.app.lab.lesson_records import Lesson, Scene
from uvlab.app.lab.lessons import LESSONS

#: What the bar suggests before any lesson is loaded.
WELCOME = (
    "Try this: drag the Declination slider and watch the PSF stretch; click on the dirty "
    "image to add a source; Help → Lessons loads each lesson's scene."
)


def lesson_tip(lesson: Lesson, scene: Scene) -> str:
    """What the bar says for a lesson's scene (plain text)."""
    return f"{lesson.title} — {scene.title}: {scene.try_this}"


def tip_html(text: str, page=None) -> str:
    """``text`` (plain) as the bar shows it, with a link to ``page`` (a Path) when given."""
    # escaped, not wrapped in a <p>: a paragraph's margins would add 12 px to every hint
    html = escape(text, quote=False)
    if page is not None:
        url = QtCore.QUrl.fromLocalFile(str(page)).toString()
        html += f' <a href="{url}">Read the lesson</a>'
    return html


def known_tips() -> list[str]:
    """The texts the bar is sized for: the welcome and every lesson scene's hint."""
    tips = [tip_html(WELCOME)]
    for lesson in LESSONS:
        tips += [tip_html(lesson_tip(lesson, s), lesson.page_path()) for s in lesson.scenes]
    return tips


class TipBar(QtWidgets.QFrame):
    """A few lines of "what to try next", with the lesson's page and a close button.

    Its height is fixed at its width (see the module's doc): :meth:`text_height`.
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        # no frame and no vertical margins: the two lines a hint takes are all its height,
        # told apart from the views by the theme's alternate background
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.setBackgroundRole(QtGui.QPalette.ColorRole.AlternateBase)
        self.setAutoFillBackground(True)
        self.label = QtWidgets.QLabel(tip_html(WELCOME))
        self._known = known_tips()
        # a label never shown, with the bar's font: the height of a text at a width
        self._probe = QtWidgets.QLabel()
        for label in (self.label, self._probe):
            label.setWordWrap(True)
            label.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self._tallest: tuple[int, int] = (-1, 0)  # (label width, tallest height at it)
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
        lay.setContentsMargins(6, 0, 0, 0)
        lay.addWidget(self.label, 1)
        lay.addWidget(self.fix_button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        lay.addWidget(close, 0, QtCore.Qt.AlignmentFlag.AlignTop)

    def show_tip(self, text: str, page=None) -> None:
        """Show ``text`` (plain), with a link to ``page`` (a Path) when given."""
        self.label.setText(tip_html(text, page))
        self._set_fix(None, None)
        self.show()
        self._fit_height()

    def show_fix(self, text: str, button: str, fix: Callable[[], None]) -> None:
        """Show a problem (plain ``text``) and a button that fixes it in one click."""
        self.label.setText(tip_html(text))
        self._set_fix(button, fix)
        self.show()
        self._fit_height()

    def clear_fix(self) -> None:
        """Take a fix away once its problem is gone (the text goes back to the welcome)."""
        if self._fix is not None:
            self._set_fix(None, None)
            self.label.setText(tip_html(WELCOME))
            self._fit_height()

    def text_height(self, text: str, width: int) -> int:
        """The height the label needs to show ``text`` (plain or rich) at ``width`` px."""
        self._probe.setFont(self.label.font())
        self._probe.setText(text)
        return self._probe.heightForWidth(width)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_height()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._fit_height()

    def _fit_height(self) -> None:
        """The label as tall as the tallest known text (or the one shown) at its width."""
        width = self.label.width()
        if width <= 0:
            return
        seen_width, tallest = self._tallest
        if seen_width != width:  # another width: the known texts measured again
            tallest = max(self.text_height(t, width) for t in self._known)
        tallest = max(tallest, self.text_height(self.label.text(), width))
        self._tallest = (width, tallest)
        if self.label.height() != tallest or self.label.minimumHeight() != tallest:
            self.label.setFixedHeight(tallest)

    def has_fix(self) -> bool:
        return self._fix is not None

    def _set_fix(self, button: str | None, fix: Callable[[], None] | None) -> None:
        self._fix = fix
        self.fix_button.setText(button or "")
        self.fix_button.setVisible(fix is not None)

    def _on_fix(self) -> None:
        fix, self._fix = self._fix, None
        self._set_fix(None, None)
        self.label.setText(tip_html(WELCOME))
        self._fit_height()
        if fix is not None:
            fix()

    def text(self) -> str:
        """What the bar says (rich text: escaped, with the lesson's link when there is one)."""
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
