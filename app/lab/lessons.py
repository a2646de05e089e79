"""The docs' lessons as scenes the window loads in one click (Help → Lessons; no Qt).

Each :class:`~uvlab.app.lab.lesson_records.Lesson` names its page in ``docs/`` and holds
the scenes its "In the window" steps set up, in order; each
:class:`~uvlab.app.lab.lesson_records.Scene` makes the
:class:`~uvlab.app.lab.session.SessionState` that step describes (array,
phase centre, hour angles, channels, sky, imaging) from
:data:`~uvlab.app.lab.session.DEFAULT_SESSION`, the window's starting state,
changing only what the lesson tells the reader to change.

The scenes are in one module per group of lessons
(:mod:`~uvlab.app.lab.lessons_arrays`: the tour, Lessons 1–2;
:mod:`~uvlab.app.lab.lessons_imaging`: Lessons 3–4). They change the array and the
declination as the window does by hand (:mod:`~uvlab.app.lab.lesson_moves`), so a
scene and the window agree.
"""

from __future__ import annotations

from uvlab.app.lab.lesson_records import Lesson
from uvlab.app.lab.lessons_arrays import ARRAY_LESSONS
from uvlab.app.lab.lessons_imaging import IMAGING_LESSONS

#: Every lesson, in the docs' order (Help → Lessons).
LESSONS: tuple[Lesson, ...] = ARRAY_LESSONS + IMAGING_LESSONS
