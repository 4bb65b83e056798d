"""Find the Collibra API identifier under the cursor.

A recogniser is a pure function of one line of text and a cursor column: it returns the candidate
identifier, a kind hint and the column range it spans, or None. The language server tries every
enabled recogniser in order and looks each answer up until one resolves, so a recogniser may be
generous: a wrong guess costs one dictionary lookup, a missed one costs the user their hover.

Third-party recognisers register under the entry-point group ``atlas.recognizers``; the entry point
may name a class (instantiated without arguments), an object with ``name`` and ``recognize(ctx)``,
or a plain function ``f(ctx) -> Recognition | None``. Plugins run before the built-ins so they can
claim text the built-ins would misread. This module imports no protocol library, so ``atlas
doctor`` can list plugins cheaply.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast, runtime_checkable

from atlas_core.recognize.text_scan import normalize_language

logger = logging.getLogger(__name__)


ENTRY_POINT_GROUP = "atlas.recognizers"

# Lines longer than this are cut to a window around the cursor: minified JSON can be one 5 MB line
# and every recogniser is linear in the line length.
MAX_LINE_WINDOW = 2000


@dataclass(frozen=True, slots=True)
class Context:
    """One cursor position: the text of its line and the column (code points) inside it."""

    line: str
    character: int
    language_id: str = ""
    line_number: int = 0
    offset: int = 0  # column of line[0] in the document line when `line` is a window of it

    @property
    def language(self) -> str:
        return normalize_language(self.language_id)


@dataclass(frozen=True, slots=True)
class Recognition:
    """A candidate identifier: what to look up, a kind hint, and its columns in the line."""

    identifier: str
    kind: str  # an IdentifierKind hint: endpoint, operation, type, schema, json_key, cli, graphql
    start: int
    end: int
    recognizer: str = ""
    method: str = ""  # endpoints: the HTTP method the surrounding code uses, when visible
    alternatives: tuple[str, ...] = ()  # looked up, in order, when `identifier` resolves nothing

    def lookups(self) -> tuple[str, ...]:
        seen: dict[str, None] = {self.identifier: None}
        for alt in self.alternatives:
            seen.setdefault(alt, None)
        return tuple(seen)


@runtime_checkable
class Recognizer(Protocol):
    # Read-only: frozen dataclasses and class attributes both satisfy it.
    @property
    def name(self) -> str: ...

    def recognize(self, ctx: Context) -> Recognition | None: ...


# --- plugins and the set the server uses ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class FunctionRecognizer:
    name: str
    func: Callable[[Context], Recognition | None]

    def recognize(self, ctx: Context) -> Recognition | None:
        return self.func(ctx)


@dataclass(frozen=True, slots=True)
class PluginStatus:
    """What happened to one entry point, for logs and `atlas doctor`."""

    name: str
    value: str
    distribution: str
    loaded: bool
    error: str = ""


def _as_recognizer(name: str, obj: object) -> Recognizer:
    if isinstance(obj, type):
        obj = obj()
    # A plugin's callable is taken at its documented signature, `f(ctx) -> Recognition | None`:
    # nothing can check that before a call, so `RecognizerSet.recognize_all` checks each result.
    recognize = getattr(obj, "recognize", None)
    if callable(recognize):
        if isinstance(obj, Recognizer) and isinstance(obj.name, str):
            return obj
        return FunctionRecognizer(name, cast("Callable[[Context], Recognition | None]", recognize))
    if callable(obj):
        return FunctionRecognizer(name, cast("Callable[[Context], Recognition | None]", obj))
    raise TypeError(f"{type(obj).__name__} is neither a recogniser nor a function")


def load_plugins(
    entry_points: Iterable[Any] | None = None,
) -> tuple[list[Recognizer], list[PluginStatus]]:
    """Load every ``atlas.recognizers`` entry point (importlib.metadata's or
    `atlas_core.metadata`'s); a broken plugin is reported, never raised."""
    if entry_points is None:
        from atlas_core.metadata import entry_points as installed

        entry_points = installed(ENTRY_POINT_GROUP)
    loaded: list[Recognizer] = []
    report: list[PluginStatus] = []
    for ep in entry_points:
        dist = getattr(getattr(ep, "dist", None), "name", "") or ""
        try:
            rec = _as_recognizer(ep.name, ep.load())
        except Exception as exc:
            logger.warning("recogniser plugin %s (%s) failed to load: %s", ep.name, ep.value, exc)
            report.append(
                PluginStatus(ep.name, ep.value, dist, False, f"{type(exc).__name__}: {exc}")
            )
            continue
        loaded.append(rec)
        report.append(PluginStatus(ep.name, ep.value, dist, True))
    return loaded, report


@dataclass
class RecognizerSet:
    """The recognisers a server runs, plugins first, filtered by the enabled-names setting."""

    recognizers: list[Recognizer]
    plugins: list[PluginStatus] = field(default_factory=list)
    enabled: frozenset[str] | None = None  # None: all
    _failed: set[str] = field(default_factory=set)

    @classmethod
    def default(cls, *, with_plugins: bool = True) -> RecognizerSet:
        from atlas_core.recognize.builtin import BUILTIN_RECOGNIZERS

        plugins, report = load_plugins() if with_plugins else ([], [])
        return cls([*plugins, *BUILTIN_RECOGNIZERS], report)

    @property
    def names(self) -> list[str]:
        return [r.name for r in self.recognizers]

    def active(self) -> list[Recognizer]:
        if self.enabled is None:
            return list(self.recognizers)
        return [r for r in self.recognizers if r.name in self.enabled]

    def recognize_all(self, ctx: Context) -> list[Recognition]:
        """Every enabled recogniser's answer at `ctx`, in priority order, without duplicates."""
        found: list[Recognition] = []
        seen: set[tuple[str, int, int]] = set()
        for rec in self.active():
            try:
                result = rec.recognize(ctx)
            except Exception:
                # A plugin bug must never take hover down; say so once per recogniser.
                if rec.name not in self._failed:
                    self._failed.add(rec.name)
                    logger.exception("recogniser %s failed", rec.name)
                continue
            if result is None:
                continue
            if not isinstance(result, Recognition):
                if rec.name not in self._failed:
                    self._failed.add(rec.name)
                    logger.warning(
                        "recogniser %s returned %s, not a Recognition", rec.name, type(result)
                    )
                continue
            key = (result.identifier, result.start, result.end)
            if key not in seen:
                seen.add(key)
                found.append(result)
        return found


def context_at(lines: Sequence[str], line: int, character: int, language_id: str) -> Context | None:
    """The recogniser context at a position; None past the last line. Long lines are windowed."""
    if line < 0 or line >= len(lines):
        return None
    text = lines[line]
    column = max(0, min(character, len(text)))
    offset = 0
    if len(text) > 2 * MAX_LINE_WINDOW:
        offset = max(0, column - MAX_LINE_WINDOW)
        text = text[offset : column + MAX_LINE_WINDOW]
        column -= offset
    return Context(text, column, language_id, line, offset)
