"""The loading pipeline: YAML with positions -> schema -> variants -> build -> checks -> sequence graph.

Each pass is a plain function returning diagnostics and can be called alone; `load_ruleset`
runs them in order and keeps going as far as the input allows, so one run reports as many
problems as it can find.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from ..bundled import resolve
from ..diagnostics import Diagnostic, SourceCache, error, has_errors, hints_bounded, sort_key
from .yaml_source import DEFAULT_LIMITS, Limits, YMap, load_file, parse_yaml


@dataclass
class LoadResult:
    ruleset: Any | None  # rulecraft.model.Ruleset when loading succeeded
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: SourceCache = field(default_factory=SourceCache)
    built: Any | None = None  # the model as built even when it has errors: an editor completes with its names
    _graph: Any = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return self.ruleset is not None and not has_errors(self.diagnostics)

    @property
    def graph(self):
        """The sequence graph (the last pass), built on first use."""
        if self.ruleset is None:
            return None
        if self._graph is None:
            from ..graph import build_graph

            self._graph = build_graph(self.ruleset)
        return self._graph


def load_ruleset(
    ref: str,
    *,
    overrides: Mapping[str, Any] | None = None,
    limits: Limits = DEFAULT_LIMITS,
    check: bool = True,
    keep_going: bool = True,
) -> LoadResult:
    """Load a ruleset by path or bundled name.

    `overrides` sets parameter or option values by name for this load (e.g. from
    `--set name=value`). With `check=False` the semantic checks are skipped (the model is
    still built and compiled). With `keep_going` (the default), a file the schema rejects is still
    built and checked as far as it can be, as `load_text` does for an editor: `rulecraft validate`
    and the language server report the same problems, all in one run.
    """
    with _collector_paused(), hints_bounded():
        return _load(ref, overrides, limits, check, keep_going=keep_going)


def load_text(path: str, text: str, *, limits: Limits = DEFAULT_LIMITS, keep_going: bool = True) -> LoadResult:
    """Load a ruleset from text not yet saved at `path` (an editor's buffer); `extends` resolves beside it.

    With `keep_going`, a file with schema errors is still built and checked as far as it can
    be, so the rules language inside its strings is checked too: every problem at once.
    """
    # a name no file system can hold (an editor's URI with %00 in it): `extends` then finds nothing beside it,
    # where os.path gave a ValueError and the editor never got diagnostics
    path = path.replace("\x00", "\ufffd")
    with _collector_paused(), hints_bounded():
        return _load(path, None, limits, True, text=text, keep_going=keep_going)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector paused for one load; the young objects collected once at the end.

    A load allocates tens of thousands of small objects (YAML nodes, AST nodes and their spans,
    compiled closures) that all live as long as the ruleset. The collector, which runs every
    700 allocations, walked them again and again during the load and freed next to nothing
    (a 2,000-line ruleset: 145 passes, two of them over the whole heap, 6 objects freed, a fifth
    of the load's time). If the caller has paused the collector itself, it is left alone.

    The one collection at the end is of the two younger generations (`collect(1)`, as dear as `collect(0)` here: the
    middle one is all but empty), so what survives goes straight to the oldest: collected into the middle one, the
    load's objects were walked twice more by the next collections of it (the longest bundled ruleset: in its first game, 11 ms -> 3 ms).
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect(1)  # what the load left in the young generations, once


def _load(ref: str, overrides: Mapping[str, Any] | None, limits: Limits, check: bool,
          text: str | None = None, keep_going: bool = False) -> LoadResult:
    from . import build, schema, variants  # late: keeps `rulecraft --help` fast
    from ..checks import run_checks

    result = LoadResult(None)
    if text is not None:
        path = ref
        root, diags = parse_yaml(text, path, limits)
    else:
        path = resolve(ref)
        if path is None:
            hint = "give a path to a .yaml file, or one of the names that 'rulecraft list' prints"
            why = variants._not_a_file(ref)  # something is there (a folder, a FIFO, /dev/zero): say what, not "no file"
            message = f"'{ref}' is not a ruleset file: {why}" if why else f"no ruleset file or bundled ruleset named '{ref}'"
            result.diagnostics.append(error("E001", message, None, hint))
            return result
        root, text, diags = load_file(path, limits)
    result.diagnostics.extend(diags)
    if text is not None:
        result.sources.add(path, text)
    if root is None:
        return result
    if not isinstance(root, YMap):
        result.diagnostics.append(
            error("E011", "a ruleset file must be a mapping of keys (ruleset:, title:, sequences:, ...)", root.span,
                  "start the file with 'ruleset: NAME' and 'title: ...'")
        )
        return result
    result.diagnostics.extend(schema.validate_schema(root, path))
    if has_errors(result.diagnostics):
        if keep_going:
            result.diagnostics.extend(_later_passes_anyway(root, path, result, limits))
        result.diagnostics.sort(key=sort_key)
        return result
    merged, vdiags = variants.resolve_extends(root, path, result.sources, limits)
    result.diagnostics.extend(vdiags)
    if merged is None or has_errors(vdiags):
        result.diagnostics.sort(key=sort_key)
        return result
    ruleset, bdiags = build.build_ruleset(merged, path, overrides or {}, limits)
    if ruleset is not None:  # what a printed text grows to once its {NAME} values are filled in (E013)
        from .yaml_limits import printed_text_limits, prose_lengths

        alone = text is not None and root.get("extends") is None  # one file: its text counts every '{'
        bdiags = bdiags + printed_text_limits(merged, ruleset, text.count("{") if alone else None) + \
            prose_lengths(merged, len(text) if alone else None)
    result.diagnostics.extend(bdiags)
    result.built = ruleset
    if ruleset is not None and check and not has_errors(bdiags):
        result.diagnostics.extend(run_checks(ruleset))
    elif ruleset is not None and check and keep_going:
        result.diagnostics.extend(_checks_anyway(ruleset, result))
    result.ruleset = ruleset if not has_errors(result.diagnostics) else None
    result.diagnostics.sort(key=sort_key)
    return result


def _checks_anyway(ruleset: Any, result: LoadResult) -> list[Diagnostic]:
    """The checks' findings (flow, names nothing uses, ...) on a model built with errors, on lines not yet reported.

    A step that could not be built is missing from the model, so what the checks say of its
    neighbours may only echo it; a finding on a line that already has a diagnostic is dropped,
    and so is everything if the checks stop on the holes.
    """
    from ..checks import run_checks

    said = {(d.span.file, d.span.line) for d in result.diagnostics if d.span is not None}
    try:
        found = run_checks(ruleset)
    except Exception:  # noqa: BLE001 - the checks were written for models without holes
        return []
    return [d for d in found if d.span is not None and (d.span.file, d.span.line) not in said]


_ECHOES = ("E2", "E4", "W4")  # the structure again in the build's words; flow over steps that could not be built


def _later_passes_anyway(root: YMap, path: str, result: LoadResult, limits: Limits) -> list[Diagnostic]:
    """The build's and checks' findings on a file the schema rejected, less what the schema already said.

    The build's own structure complaints (E2xx) repeat the schema's in other words and are
    dropped, and so are the flow findings (E4xx, W4xx: a sequence whose one step could not be
    built "has no steps"), which on a model with holes (no 'start:', say) only echo the hole.
    The build was written for schema-valid input; on anything else it may stop with an
    exception, and then the schema's findings stand alone.
    """
    from . import build, variants

    said = {(d.span.file, d.span.line) for d in result.diagnostics if d.span is not None}
    try:
        merged, vdiags = variants.resolve_extends(root, path, result.sources, limits)
        if merged is None:
            return []
        ruleset, bdiags = build.build_ruleset(merged, path, {}, limits)
        result.built = ruleset
        more = [d for d in list(vdiags) + list(bdiags) if not d.code.startswith(_ECHOES)]
    except Exception:  # noqa: BLE001 - see the docstring
        return []
    return [d for d in more if d.span is None or (d.span.file, d.span.line) not in said]

