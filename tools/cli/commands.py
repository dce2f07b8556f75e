"""What each verb of the command line does: `cmd_<verb>(args) -> int`, calling the library.

Heavy modules (yaml, lark, jsonschema, graphviz) are imported inside the functions, so that
`rulecraft --help` starts fast.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import sys

from rulecraft.tools.cli.codes import (EXIT_DIAGNOSTICS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, PROG, describe_exc,
                                       internal_error)

# ---------------------------------------------------------------------------------------
# list


def cmd_list(args: argparse.Namespace) -> int:
    from rulecraft.bundled import bundled_rulesets

    entries = bundled_rulesets(include_examples=True)
    if not entries:
        print(f"{PROG} list: no bundled rulesets found", file=sys.stderr)
        return EXIT_OK
    if args.names:
        for b in entries:
            print(b.name)
        return EXIT_OK
    width = max(len(b.name) for b in entries)
    games = [b for b in entries if not _is_example(b.path)]
    examples = [b for b in entries if _is_example(b.path)]
    if args.all:
        games, examples = games + examples, []
    for b in games:
        print(f"{b.name:<{width}}  {b.title}")
    if examples:
        if games:
            print()
        print("examples:")
        for b in examples:
            print(f"{b.name:<{width}}  {b.title}")
    return EXIT_OK


def _is_example(path: str) -> bool:
    return os.path.basename(os.path.dirname(path)) == "examples"


# ---------------------------------------------------------------------------------------
# validate


def cmd_validate(args: argparse.Namespace) -> int:
    import json

    from rulecraft.diagnostics import has_errors, render_text
    from rulecraft.loader import load_ruleset

    as_json = args.format == "json"
    records: list[dict] = []
    checked = with_errors = warnings = crashed = 0
    for ref in _collector_off(args.rulesets):
        checked += 1
        try:
            result = load_ruleset(ref)
        except Exception as exc:  # a bug in the loader: report it, keep checking the others
            crashed += 1
            internal_error(exc, f"while loading {ref}")
            records.append({"ruleset": ref, "ok": False, "diagnostics": [], "internal_error": describe_exc(exc)})
            continue
        diags = list(result.diagnostics)
        if result.ok and getattr(args, "print_check", True):
            from rulecraft.tools.words.printcheck import print_check  # W701/W702: what players would read

            diags += print_check(result.ruleset)
        errors = has_errors(diags)
        warnings += sum(1 for d in diags if not d.is_error)
        ok = result.ok
        if not ok and not errors:
            # no ruleset and yet no error: the loader broke its promise, not the user
            crashed += 1
            print(f"{PROG}: internal error: loading {ref} gave no ruleset and no error diagnostic; "
                  "please report this", file=sys.stderr)
        elif not ok:
            with_errors += 1
        if as_json:
            records.append({"ruleset": ref, "ok": ok, "diagnostics": [d.to_dict() for d in diags]})
            continue
        if diags:
            print(render_text(diags, result.sources))
        if ok and not args.quiet:
            name, title = _name_and_title(ref, result)
            print(f"ok: {name} ({title})" if title and title != name else f"ok: {name}")
    if as_json:
        print(json.dumps(records, indent=2))
    elif not args.quiet:
        summary = f"{checked} ruleset{'s' if checked != 1 else ''} checked, {with_errors} with errors"
        if warnings:
            summary += f", {warnings} warning{'s' if warnings != 1 else ''}"
        if crashed:
            summary += f", {crashed} not checked (internal error)"
        print(summary)
    if crashed:
        return EXIT_INTERNAL
    return EXIT_DIAGNOSTICS if with_errors else EXIT_OK


def _collector_off(refs: list[str]):
    """The rulesets one by one with Python's cycle collector off: a load's objects (tens of thousands, nearly all
    alive until its ruleset is checked) are not walked again at its end for next to nothing. What one ruleset
    leaves is collected before the next; nothing after the last, as the command ends."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        for i, ref in enumerate(refs):
            if i:
                gc.collect()
            yield ref
    finally:
        if was_on:
            gc.enable()


def _name_and_title(ref: str, result) -> tuple[str, str | None]:
    """The ruleset's id and title, from the model if it has them, else from the file head."""
    rs = result.ruleset
    name = next((v for v in (getattr(rs, a, None) for a in ("id", "name", "ruleset")) if isinstance(v, str) and v), None)
    title = getattr(rs, "title", None)
    if name is None or not isinstance(title, str):
        from rulecraft.bundled import resolve

        head_name, head_title = _read_head(resolve(ref))
        name = name or head_name
        title = title if isinstance(title, str) else head_title
    return name or ref, title


def _read_head(path: str | None) -> tuple[str | None, str | None]:
    if not path:
        return None, None
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(4000)
    except OSError:
        return None, None
    m = re.search(r"^ruleset:\s*([A-Za-z0-9_.-]+)\s*$", head, re.M)
    t = re.search(r"^title:\s*(.+?)\s*$", head, re.M)
    return (m.group(1) if m else None), (t.group(1).strip("'\"") if t else None)


# ---------------------------------------------------------------------------------------
# verbs not built yet: registered with their contract arguments so --help shows them


def _not_built(verb: str, capability: str) -> int:
    print(f"{PROG} {verb}: not built yet: {capability}", file=sys.stderr)
    return EXIT_USAGE


def _feature(module: str, verb: str, capability: str, args: argparse.Namespace) -> int:
    """Run `rulecraft.tools.MODULE.run(args)`; a module not written yet means the verb is not built."""
    import importlib.util

    name = f"rulecraft.tools.{module}"
    if importlib.util.find_spec(name) is None:
        return _not_built(verb, capability)
    import importlib

    return int(importlib.import_module(name).run(args) or 0)


def cmd_play(args: argparse.Namespace) -> int:
    from rulecraft.tools.loading import parse_sets
    from rulecraft.tools.table.play import play

    try:
        overrides = parse_sets(args.set)
    except ValueError as exc:
        print(f"{PROG} play: {exc}", file=sys.stderr)
        return EXIT_USAGE
    names = args.names or None  # a list already: checked by the argument's type
    return play(args.ruleset, args.players, args.agent, args.seed, args.log, overrides, quiet=args.quiet,
                names=names, time_limit=args.time_limit, check=args.check, save_path=args.save,
                resume_path=args.resume, pace=args.pace, seat=None if args.seat is None else args.seat - 1,
                story_path=args.story_json)


def cmd_replay(args: argparse.Namespace) -> int:
    from rulecraft.tools.table.play import replay_log

    return replay_log(args.log, partial_ok=args.partial, quiet=args.quiet, ruleset=args.ruleset,
                      seat=None if args.seat is None else args.seat - 1, story=args.story)


def cmd_test(args: argparse.Namespace) -> int:
    """Run scenario files (a designer's rule tests): one line per scenario, then a count; exit 0 when every one
    passes (an `xfail` one fails as it says), 1 when any fails, 2 when a path is not there."""
    from pathlib import Path

    from rulecraft.runtime.scenario import scenario_verdict

    files: list[Path] = []
    for ref in args.scenarios:
        path = Path(ref)
        if path.is_dir():  # every scenario under it: the rulesets beside them are passed over
            files += sorted(p for p in path.rglob("*.yaml") if p.is_file() and not _a_ruleset_file(p))
        elif path.is_file():
            files.append(path)
        else:
            print(f"{PROG} test: no such scenario file or folder: {ref}", file=sys.stderr)
            return EXIT_USAGE
    if not files:
        print(f"{PROG} test: no scenario files (.yaml) in {', '.join(args.scenarios)}", file=sys.stderr)
        return EXIT_USAGE
    failed = 0
    for path in files:
        word, problems, story = scenario_verdict(str(path))
        failed += word in ("FAIL", "ERROR", "XPASS")
        print(f"{word:5} {path}" + (f": {problems[0]}" if problems else ""), flush=True)
        if args.verbose and word in ("FAIL", "ERROR", "XPASS"):
            for line in problems[1:]:
                print(f"      {line}")
            for line in story:
                print(f"      | {line}")
    print(f"{len(files) - failed} passed, {failed} failed")
    return EXIT_DIAGNOSTICS if failed else EXIT_OK


def _a_ruleset_file(path) -> bool:
    import yaml

    from rulecraft.runtime.scenario import a_ruleset

    try:
        with open(path, encoding="utf-8") as fh:
            return a_ruleset(yaml.safe_load(fh))
    except (OSError, ValueError, yaml.YAMLError):
        return False  # the scenario's run says what is wrong with it


def cmd_render(args: argparse.Namespace) -> int:
    return _feature("chart.render", "render", "flowcharts and sheets", args)


def cmd_sheets(args: argparse.Namespace) -> int:
    return _feature("print.sheets", "sheets", "flowcharts and sheets", args)


def cmd_book(args: argparse.Namespace) -> int:
    return _feature("print.book", "book", "the rulebook", args)


def cmd_schema(args: argparse.Namespace) -> int:
    return _feature("cli.schemaout", "schema", "the JSON Schema for editors", args)


def cmd_lsp(args: argparse.Namespace) -> int:
    return _feature("lsp", "lsp", "the language server", args)


def cmd_studio(args: argparse.Namespace) -> int:
    return _feature("studio", "studio", "the studio", args)


def cmd_aid(args: argparse.Namespace) -> int:
    return _feature("print.aid", "aid", "the player aid", args)


def cmd_simulate(args: argparse.Namespace) -> int:
    from rulecraft.diagnostics import UNPRINTABLE  # (a name as typed never drives the terminal)
    from rulecraft.tools.loading import parse_sets
    from rulecraft.tools.simulate.runs import load, progress_printer, report, simulate, unreached, write_coverage, write_csv, \
        write_json

    try:
        overrides = parse_sets(args.set)
    except ValueError as exc:
        print(f"{PROG} simulate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from rulecraft.diagnostics import render_text

    loaded = load(args.ruleset, overrides)  # (kept for the games: loaded once)
    if not loaded.ok:
        print(render_text(loaded.diagnostics, loaded.sources))
        return EXIT_DIAGNOSTICS
    rs = loaded.ruleset
    if args.players is not None and not rs.players.min <= args.players <= rs.players.max:
        print(f"{PROG} simulate: {rs.title} is for {rs.players.min} to {rs.players.max} players, not {args.players}",
              file=sys.stderr)  # a usage error, said before anything else
        return EXIT_USAGE
    from rulecraft.agents import AgentError, make_agent

    try:
        for seat, kind in enumerate(args.agent):
            make_agent(kind, seat, 0)
    except AgentError as exc:
        print(f"{PROG} simulate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    to_stdout = [o for o in ("json", "csv", "coverage") if getattr(args, o) == "-"]
    if len(to_stdout) > 1:
        print(f"{PROG} simulate: only one of --{', --'.join(to_stdout)} can be '-' (standard output)", file=sys.stderr)
        return EXIT_USAGE
    from rulecraft.files import input_problem, output_folder_problem, output_problem

    for problem in filter(None, map(input_problem, (args.json, args.csv, args.coverage, args.report))):
        print(f"{PROG} simulate: {problem}", file=sys.stderr)  # a file the loader read (a parent too)
        return EXIT_USAGE
    problems = [output_problem(p) for p in (args.json, args.csv, args.coverage) if p]
    problems += [output_folder_problem(args.report)] if args.report else []  # a file there: said after all the games
    for problem in filter(None, problems):
        print(f"{PROG} simulate: {problem}", file=sys.stderr)  # said before the games are played
        return EXIT_DIAGNOSTICS
    from rulecraft.tools.cli.codes import CtrlCWatch, end_interrupted_cluster_run
    from rulecraft.tools.simulate.aggregate import RunRefused
    from rulecraft.tools.simulate.cluster import ClusterError
    from rulecraft.tools.simulate.executors import Interrupted, Stopped, cli_runs, stop_code

    watch = CtrlCWatch(f"{PROG} simulate")
    try:  # results are kept (on disk) only for the files that list every game
        with watch.armed(bool(args.cluster)), cli_runs(args.cluster, args.cluster_timeout) as where:
            summary = simulate(args.ruleset, args.games, **{"workers": args.workers, **where}, players=args.players,
                               seed=args.seed, agents=args.agent, overrides=overrides, check=args.check, coverage=True,
                               progress=watch.track(progress_printer()), keep="disk" if args.json or args.csv else "none",
                               keep_coverage=bool(args.json))
    except (ClusterError, Interrupted, Stopped, KeyboardInterrupt) as exc:
        code = stop_code(f"{PROG} simulate", exc)
        if args.cluster and not isinstance(exc, ClusterError):
            end_interrupted_cluster_run(code)
        return code
    except RunRefused as exc:  # a ruleset's metrics, a full temporary folder: one line, nothing written
        print(f"{PROG} simulate: {exc}; nothing written", file=sys.stderr)
        return EXIT_DIAGNOSTICS
    summary.never_reached = unreached(summary, loaded.graph)
    text_out = sys.stderr if to_stdout else sys.stdout  # standard output holds only the data asked for with '-'
    print(report(summary), file=text_out)
    from rulecraft.files import OutputError

    try:
        if args.json:
            write_json(summary, args.json)
        if args.csv:
            write_csv(summary, args.csv)
        if args.coverage:
            count = write_coverage(summary, loaded.graph, args.coverage)
            where = "standard output" if args.coverage == "-" else args.coverage
            print(f"coverage: {count} graph nodes never reached (listed in {where})".translate(UNPRINTABLE), file=text_out)
        if args.report:
            from rulecraft.tools.simulate.report import write_report

            page = write_report(summary, args.report)
            print(f"report: {page}".translate(UNPRINTABLE), file=text_out)
    except OutputError as exc:
        print(f"{PROG} simulate: {exc.message}", file=sys.stderr)
        return EXIT_DIAGNOSTICS if exc.exit_code == 1 else exc.exit_code  # 2: it names an input
    return EXIT_DIAGNOSTICS if summary.errors else EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    return _feature("simulate.compare", "compare", "simulation and comparison", args)


def cmd_diff(args: argparse.Namespace) -> int:
    return _feature("diff.report", "diff", "ruleset diff", args)


