"""The last runs' results, kept in the studio's memory so that a page reloaded gets its run's plots again (session 19:
a reload lost them, and 500 games were played again to see them). Each result is named by a key of its own, which
only the page that ran it holds (in its tab's sessionStorage); a few are kept, the oldest let go first."""

from __future__ import annotations

import secrets
from collections import OrderedDict
from typing import Any, Optional

MAX_KEPT = 4  # results kept at once in the whole studio (a result with its plots: a few MB at most)


class Kept:
    def __init__(self) -> None:
        self.results: OrderedDict[str, tuple[dict, list, Any]] = OrderedDict()

    def put(self, result: dict, done: list, swept: Any) -> str:
        """Keep a run's result (as sent) with what its charts are drawn from; its key."""
        key = secrets.token_urlsafe(18)
        self.results[key] = (result, done, swept)
        while len(self.results) > MAX_KEPT:
            self.results.popitem(last=False)
        return key

    def get(self, key: Any) -> Optional[tuple[dict, list, Any]]:
        if not isinstance(key, str) or key not in self.results:
            return None
        self.results.move_to_end(key)
        return self.results[key]
