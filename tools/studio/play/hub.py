"""The studio's games and the seats' websockets: which token opens which seat, the bots' moves at their pace,
and a frame to every open seat after every change. The engine runs on one worker thread per call, under one
lock per game, never on the event loop.

A seat token (`secrets.token_urlsafe`) is the whole of a seat's link: it is looked up by its SHA-256, so the
lookup's time says nothing of a guess. A connection is bound to the seat of its token when it opens and is sent
that seat's frames only (tools.studio.play.table.PlayTable.frame).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import secrets
import stat
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

from rulecraft.files import OutputError

from rulecraft.tools.studio.play.gamefolder import PERSON, games_home, write_meta
from rulecraft.tools.studio.play.table import SPECTATOR, PlayTable, Refusal

log = logging.getLogger("rulecraft.studio")
MAX_GAMES = 16  # games going on at once (a game over does not count)
MAX_KEPT = 64  # games a studio finds again when it starts (the newest)
MAX_SEATS_OPEN = 64  # seat connections at once, over all games
GAMES_FOLDER = os.path.join(".rulecraft", "games")
MAX_WAITING = 256 * 1024  # bytes of messages other than states waiting for one page (it does not read: closed)
MAX_AGAIN = 32  # games played again in a row (Play again, a seat's ask) after one the studio's page started


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


class Seat:
    """One open websocket of one seat: where its story stands, whether a state frame is owed to it, and the other
    messages waiting for it. A state is whole (the story since `sent` is made with it), so a page is owed at most
    one, made when its socket can take it: a page that reads slowly, or never, holds a flag and at most
    MAX_WAITING bytes of other messages (an error, help), never a queue that grows with the game (session 18)."""

    def __init__(self, game_id: str, seat: int):
        self.game_id, self.seat = game_id, seat
        self.sent = 0  # the game's story lines before this index were sent
        self.owed = False  # a state frame is to be made and sent
        self.waiting: deque[tuple[str, int]] = deque()  # the other messages: JSON text, its bytes in UTF-8
        self.waiting_bytes = 0
        self.overflowed = False  # past MAX_WAITING: the page is closed (WAITING_CLOSE)
        self.ready = asyncio.Event()

    def put(self, message: dict) -> None:
        text = json.dumps(message, ensure_ascii=False)
        size = len(text.encode("utf-8", "replace"))
        if self.waiting_bytes + size > MAX_WAITING:
            self.overflowed = True
        else:
            self.waiting.append((text, size))
            self.waiting_bytes += size
        self.ready.set()

    def held(self) -> int:
        """The bytes held for this page, waiting to be sent (the state owed is made when it is sent)."""
        return self.waiting_bytes


class Hub:
    def __init__(self, root: str, pace: float = 0.6):
        self.root = root
        self.home = os.path.join(root, GAMES_FOLDER)
        self.pace = pace
        self.tables: dict[str, PlayTable] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.tokens: dict[str, tuple[str, int]] = {}  # sha256(token) -> (game id, seat; -1 the spectator)
        self.seats: set[Seat] = set()
        self.pushing: set[asyncio.Task] = set()  # push_soon's tasks
        self.running: dict[str, asyncio.Task] = {}
        self.wanted: set[str] = set()  # games kicked since their runner last looked
        self.engine = ThreadPoolExecutor(max_workers=2, thread_name_prefix="studio-play")
        self.problems: list[str] = []  # games found on disk that could not be made again, and why
        self.next: dict[str, str] = {}  # a game over -> the game its seats play next (`again`)

    async def off_loop(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self.engine, fn, *args)

    # ------------------------------------------------------------------ games
    def find_games(self) -> None:
        """The games kept under the folder (a restart): each made again from its save, its bots set going."""
        try:
            games_home(self.root, GAMES_FOLDER)
        except ValueError as exc:  # a link out of the folder: nothing read through it
            self.problems.append(str(exc))
            return
        if not os.path.isdir(self.home):
            return
        found = []
        for name in os.listdir(self.home):  # a game is a folder of its own: a link (leading anywhere) is passed over
            try:
                st = os.lstat(os.path.join(self.home, name))
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                found.append((st.st_mtime, name))
            else:
                self.problems.append(f"{name[:80]}: not a game's folder")
        for _, name in sorted(found)[-MAX_KEPT:]:
            try:
                table = PlayTable.load(os.path.join(self.home, name), self.root)
            except Exception as exc:  # noqa: BLE001 - one damaged game is said and skipped, never the studio's end
                self.problems.append(f"{name}: {type(exc).__name__}: {str(exc)[:200]}")
                continue
            if any(digest(t) in self.tokens for t in table.meta["tokens"].values()):  # a copied game's folder: a
                self.problems.append(f"{name}: its seat links open another game found first")  # link opens one game
                continue
            self._add(table)
        for gid, t in self.tables.items():  # Play again, kept: followed when the next game names this one in turn
            if (then := self.tables.get(t.meta.get("next", ""))) is not None and then.meta.get("after") == gid:
                self.next[gid] = t.meta["next"]

    def _add(self, table: PlayTable) -> None:
        gid = table.meta["id"]
        self.tables[gid] = table
        self.locks[gid] = asyncio.Lock()
        for key, token in table.meta["tokens"].items():
            self.tokens[digest(token)] = (gid, SPECTATOR if key == "spectator" else int(key))

    async def new_game(self, ruleset: str, kinds: list[str], seed: int, overrides: dict,
                       after: Optional[str] = None) -> dict:
        if sum(not t.game.over for t in self.tables.values()) >= MAX_GAMES:
            raise Refusal(f"{MAX_GAMES} games are going on: finish one first (or remove its folder from "
                          f"{GAMES_FOLDER} and start the studio again)")
        try:
            games_home(self.root, GAMES_FOLDER)
        except ValueError as exc:
            raise Refusal(f"the game cannot start: {exc}") from None
        gid = secrets.token_hex(6)
        tokens = {str(s): secrets.token_urlsafe(24) for s, k in enumerate(kinds) if k == PERSON}
        tokens["spectator"] = secrets.token_urlsafe(24)
        table = await self.off_loop(PlayTable.new, os.path.join(self.home, gid), gid, ruleset, kinds, seed,
                                    overrides, tokens, after)
        self._add(table)
        self.kick(gid)
        return self.describe(gid)

    async def again(self, gid: str) -> None:
        """The next game of the game over `gid`, asked from one of its seats: the same ruleset (the copy the game
        was played by), seats, bots and options, the seed after its seed; every open page of `gid` is then sent its
        own link to it (`next` in its frames) and follows. Made once: a second ask (another seat, at once) finds it.
        Called under the game's lock."""
        t = self.tables[gid]
        if not t.game.over:
            raise Refusal("the game is not over: a new one starts when it ends")
        if gid not in self.next:
            if self.played_again(gid) >= MAX_AGAIN:  # a seat's link alone made games without end (session 20b)
                raise Refusal(f"{MAX_AGAIN} games were played again in a row after the one the studio started: "
                              "ask the studio's host to start another")
            seed = t.meta["seed"] + 1 if t.meta["seed"] + 1 < 2**64 else 0
            made = await self.new_game(t.meta["ruleset"], list(t.meta["kinds"]), seed, dict(t.meta["overrides"]),
                                       after=gid)
            self.next[gid] = made["id"]
            t.meta["next"] = made["id"]  # kept in game.json: after a restart an old link goes on to it (it showed
            try:  # the end again, and its Play again made a second next game)
                await self.off_loop(write_meta, t.home, t.meta)
            except (OSError, OutputError) as exc:  # (a full disk: the game goes on; a restart shows the end again)
                log.warning("game %s: its next game could not be kept in game.json: %s", gid, exc)

    def played_again(self, gid: str) -> int:
        """How many games before `gid` were played again in a row (`after`), up to MAX_AGAIN: a seat's `again` makes
        a game (a folder, its ruleset copied, a table held for the studio's life) where only the page could before."""
        count, seen = 0, {gid}
        while count < MAX_AGAIN and (before := self.tables[gid].meta.get("after")) in self.tables \
                and before not in seen:
            count, gid = count + 1, before
            seen.add(gid)
        return count

    def relative(self, path: str) -> Optional[str]:
        """`path` relative to the studio's folder when it lies in it (not in a game's own copy), else None."""
        real, root = os.path.realpath(path), os.path.realpath(self.root)
        if os.path.commonpath([real, root]) != root or os.path.commonpath([real, os.path.realpath(self.home)]) == \
                os.path.realpath(self.home):
            return None
        return os.path.relpath(real, root).replace(os.sep, "/")

    def describe(self, gid: str) -> dict:
        """A game for the studio's page (which holds the studio's token, so it may have every seat's link)."""
        t = self.tables[gid]
        names = [p.name for p in t.game.players]
        before = t.meta.get("after")  # the game this one was played again after, when that one names it in turn
        after = {"id": before, "seed": self.tables[before].meta["seed"]} if self.next.get(before) == gid else None
        return {"id": gid, "title": t.meta["title"], "ruleset": t.meta["ruleset"], "seed": t.meta["seed"],
                "after": after,
                "over": bool(t.game.over), "decisions": t.game.decisions,
                "seats": [{"seat": s, "name": names[s], "kind": k, "link": self._link(t, str(s))}
                          for s, k in enumerate(t.meta["kinds"])],
                "spectator": self._link(t, "spectator"), "problem": t.problem, "at": self.written(t.problem_at),
                "said": t.problem_said}

    def written(self, at: Optional[dict]) -> Optional[dict]:
        """Where a rule gone wrong is written, for the studio's page ({path, line, col}, the path relative to the
        folder), or None when it is not a file of the folder (a bundled ruleset, the game's own copy)."""
        path = at and self.relative(at["file"])
        return {"path": path, "line": at["line"], "col": at["col"]} if path and at else None

    @staticmethod
    def _link(t: PlayTable, key: str) -> Optional[str]:
        token = t.meta["tokens"].get(key)
        return f"/play?seat={token}" if token else None

    def seat_of(self, token: str) -> Optional[tuple[str, int]]:
        return self.tokens.get(digest(token)) if token else None

    # ------------------------------------------------------------------ the game goes on
    def kick(self, gid: str) -> None:
        """Play the game on until a person is asked (bots, standing passes), a frame to every seat after each."""
        self.wanted.add(gid)
        task = self.running.get(gid)
        if task is None or task.done():
            self.running[gid] = asyncio.create_task(self._run(gid))

    async def _run(self, gid: str) -> None:
        table = self.tables[gid]
        while gid in self.wanted:  # a kick while the last frames went out: look again
            self.wanted.discard(gid)
            try:
                while True:
                    async with self.locks[gid]:
                        moved = await self.off_loop(table.step)
                    if not moved:
                        break
                    await self.push(gid)
                    if self.pace:
                        await asyncio.sleep(self.pace)
            except Refusal as exc:
                log.warning("game %s stopped: %s", gid, exc)
            await self.push(gid)

    async def push(self, gid: str, but: Optional[Seat] = None) -> None:
        for seat in [s for s in self.seats if s.game_id == gid and s is not but]:
            await self.send_state(seat)

    def push_soon(self, gid: str) -> None:
        """`push` as a task of its own, kept until done: called where the caller may be cancelled (a page gone)."""
        task = asyncio.get_running_loop().create_task(self.push(gid))
        self.pushing.add(task)
        task.add_done_callback(self.pushing.discard)

    async def send_state(self, seat: Seat) -> None:
        """A state frame is owed to `seat`: made when its socket can take it (`state_frame`), one however many
        steps the game took meanwhile."""
        seat.owed = True
        seat.ready.set()

    async def state_frame(self, seat: Seat) -> dict:
        table = self.tables[seat.game_id]
        async with self.locks[seat.game_id]:
            start = seat.sent  # the seat's own lines sent so far (a story an undo cut is sent whole again: frame)
            frame = await self.off_loop(table.frame, seat.seat, start)
            seat.sent = frame["storyEnd"]
        frame["away"] = self.away(seat.game_id)
        after = self.next.get(seat.game_id)  # the game played next: this seat's own link to it (`again`)
        frame["next"] = self._link(self.tables[after], "spectator" if seat.seat == SPECTATOR else str(seat.seat)) \
            if after else None
        return frame

    def away(self, gid: str) -> list[int]:
        """The people's seats of game `gid` with no page open (a bot is never away; the spectator is no seat)."""
        here = {s.seat for s in self.seats if s.game_id == gid}
        return sorted(self.tables[gid].people - here)

    async def act(self, seat: Seat, message: dict) -> Optional[dict]:
        """A seat's message; returns a reply for that seat alone (help, an error), or None."""
        gid, what = seat.game_id, message.get("type")
        table = self.tables[gid]
        if seat.seat == SPECTATOR and what != "state":
            raise Refusal("a spectator watches: it answers nothing")
        reply = None
        async with self.locks[gid]:
            if what == "answer":
                await self.off_loop(table.decide, seat.seat, message.get("decision"), message.get("wire"))
            elif what == "passUntil":
                await self.off_loop(table.pass_until, seat.seat, message.get("decision"))
            elif what == "undo":
                before = table.game
                said = await self.off_loop(table.undo, seat.seat)
                table.said.setdefault(seat.seat, []).append(said)
                if table.game is not before:  # the story was cut: every seat of the game gets it whole again
                    for s in self.seats:
                        if s.game_id == gid:
                            s.sent = 0
            elif what == "again":
                await self.again(gid)
            elif what == "help":
                reply = {"type": "help", "text": await self.off_loop(table.help, seat.seat)}
            elif what == "state":
                pass
            else:
                raise Refusal(f"'{str(what)[:40]}' is not a message of the play protocol")
        if what == "state":
            await self.send_state(seat)
        elif what != "help":
            await self.push(gid)
            self.kick(gid)
        return reply

    async def close(self) -> None:
        for task in self.running.values():
            task.cancel()
        for table in self.tables.values():
            table.close()
        self.engine.shutdown(wait=False, cancel_futures=True)
