"""`rulecraft studio`: a local web page where a designer edits a ruleset and sees its problems, chart, printed
pages and variants change; the server (Starlette + uvicorn) runs in this process, on 127.0.0.1 by default."""

from __future__ import annotations

import os
import socket
import sys


def run(args) -> int:
    from rulecraft.tools.cli.codes import EXIT_OK, EXIT_USAGE
    from rulecraft.tools.studio.guard import Guard, is_loopback, new_token

    target = os.path.abspath(args.path or ".")
    if os.path.isdir(target):
        root, open_file = target, None
    elif os.path.isfile(target):
        root, open_file = os.path.dirname(target), os.path.basename(target)
    else:
        print(f"rulecraft studio: {_not_there(args.path, target)}", file=sys.stderr)
        return EXIT_USAGE
    problem = _cluster_problem(getattr(args, "cluster", None))
    if problem:
        print(f"rulecraft studio: {problem[0]}", file=sys.stderr)
        return problem[1]
    host = args.host
    try:
        sock = _bind(host, args.port)
    except OSError as exc:
        print(f"rulecraft studio: cannot listen on {host}:{args.port}: {(exc.strerror or str(exc)).lower()}",
              file=sys.stderr)
        return EXIT_USAGE
    except (TypeError, ValueError):  # a name the IDNA codec cannot write (a control, a bidirectional mark), a NUL
        print(f"rulecraft studio: cannot listen on {host[:100]}:{args.port}: it is no host name or address",
              file=sys.stderr)
        return EXIT_USAGE
    port = sock.getsockname()[1]
    if not is_loopback(host):
        print(f"rulecraft studio: warning: listening on {host}, not only this machine: anyone who can reach it "
              "and has the token can read and write the rulesets in the folder", file=sys.stderr)
    play, problem = _play_request(args, root)
    if problem:
        print(f"rulecraft studio: {problem}", file=sys.stderr)
        return EXIT_USAGE
    guard = Guard(new_token(), bound=host)
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    shown = f"[{shown}]" if ":" in shown else shown
    url = f"http://{shown}:{port}/?token={guard.token}"
    print(f"rulecraft studio: serving {root}", file=sys.stderr)
    print(url, flush=True)
    if args.open:
        import webbrowser

        webbrowser.open(url)
    if play is not None:
        def links(game: dict) -> None:  # each person's seat link, and the spectator's, after the studio's own
            base = url.split("/?", 1)[0]
            for seat in game["seats"]:
                if seat["link"]:
                    print(f"{seat['name']}: {base}{seat['link']}", flush=True)
            print(f"spectator: {base}{game['spectator']}", flush=True)
            if host in ("0.0.0.0", "::", ""):
                print("rulecraft studio: from another machine, use this machine's address on the network in "
                      "place of 127.0.0.1", file=sys.stderr)

        play["then"] = links
    from rulecraft.tools.studio.lab.channel import Lab

    lab = Lab(getattr(args, "cluster", None), getattr(args, "cluster_timeout", None))
    return serve(sock, root, guard, open_file, getattr(args, "pace", 0.6), play, lab) or EXIT_OK


def _play_request(args, root: str) -> tuple:
    """`--play RULESET` with its seats, seed and options, as the app takes it, or (None, a usage problem)."""
    if not getattr(args, "play", None):
        return None, ""
    from rulecraft.bundled import resolve
    from rulecraft.loader import load_ruleset
    from rulecraft.tools.loading import parse_sets

    path = resolve(args.play, root) or resolve(args.play)
    if path is None:
        return None, f"--play {args.play}: no such ruleset file or bundled ruleset"
    try:
        options = parse_sets(args.set)
    except ValueError as exc:
        return None, str(exc)
    loaded = load_ruleset(path, overrides=options)
    if not loaded.ok:
        return None, f"--play {args.play}: the game cannot start: {loaded.diagnostics[0].message}"
    from rulecraft.tools.studio.play.gamefolder import BOTS, PERSON

    n = loaded.ruleset.players.default
    kinds = list(args.agent or [PERSON])
    if len(kinds) > n and loaded.ruleset.players.min <= len(kinds) <= loaded.ruleset.players.max:
        n = len(kinds)  # as many seats as agents given, where the ruleset allows them
    kinds = (kinds + [kinds[-1]] * n)[:n]
    wrong = [k for k in kinds if k != PERSON and k not in BOTS]
    if wrong:
        return None, f"--agent {wrong[0]}: a seat in the browser is {PERSON} (a person) or one of {', '.join(BOTS)}"
    return {"ruleset": os.path.abspath(path), "seats": kinds, "seed": args.seed, "options": options}, ""


def _cluster_problem(address: str | None) -> tuple[str, int] | None:
    """Why `--cluster ADDRESS` cannot be used, said at start (as `simulate --cluster` says it), and the exit code;
    the scheduler itself is reached by each run, which says so on the page when it cannot be."""
    if address is None:
        return None
    import importlib.util

    from rulecraft.tools.simulate.cluster import ClusterError, cluster_address

    try:
        cluster_address(address)
    except ClusterError as exc:
        return str(exc), exc.code
    if importlib.util.find_spec("distributed") is None:
        return "--cluster needs Dask distributed: pip install 'rulecraft[cluster]'", 2
    return None


def _not_there(given: str, target: str) -> str:
    """Why the path given serves nothing, and the way on (nothing is made: a typo would leave a folder behind)."""
    import shlex

    if os.path.lexists(target):
        return f"{given} is neither a folder nor a file"
    if target.lower().endswith((".yaml", ".yml")):
        return (f"{given}: no such file; to start a new ruleset, run rulecraft studio {shlex.quote(os.path.dirname(target))} "
                "and make it with New")
    return f"{given}: no such folder; make it first (mkdir -p {shlex.quote(target)}), or give a folder that is there"


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    # listening from now: the address is printed (and the browser opened) before uvicorn starts, and a request
    # that comes first waits for it in the queue instead of being refused (uvicorn listens on it again, the same)
    sock.listen(2048)
    return sock


def serve(sock: socket.socket, root: str, guard, open_file: str | None, pace: float = 0.6,
          play: dict | None = None, lab=None) -> int:
    """Serve until Ctrl-C (exit 0)."""
    import logging

    import uvicorn

    from rulecraft.tools.studio.app import make_app

    logging.getLogger("rulecraft.lsp").setLevel(logging.ERROR)
    app = make_app(root, guard, open_file, pace, play, lab)
    try:
        uvicorn.Server(server_config(app)).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    return 0


def server_config(app):
    """uvicorn's settings for the studio: websocket frames within the language server's limit, at most
    MAX_CONNECTIONS at once, and a connection that sends no whole request head in time closed (guard.py)."""
    import uvicorn

    from rulecraft.tools.lsp.wire import MAX_MESSAGE
    from rulecraft.tools.studio.guard import MAX_CONNECTIONS, sized_websocket_protocol, slow_client_protocol
    from rulecraft.tools.studio.lab.channel import MAX_MESSAGE as LAB_MESSAGE
    from rulecraft.tools.studio.play.routes import MAX_MESSAGE as SEAT_MESSAGE

    # each socket's own limit, with room for the route to refuse in its own words what is past its limit
    limits = {"/ws": 2 * MAX_MESSAGE, "/simulate": 4 * LAB_MESSAGE, "/play/ws": 4 * SEAT_MESSAGE}
    return uvicorn.Config(app, log_level="warning", ws=sized_websocket_protocol(limits, 4 * SEAT_MESSAGE),
                          ws_max_size=2 * MAX_MESSAGE,
                          lifespan="on", server_header=False, timeout_graceful_shutdown=2,
                          http=slow_client_protocol(), limit_concurrency=MAX_CONNECTIONS)
