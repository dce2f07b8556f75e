"""Session 17: hostile input of kinds not tried before (docs/security.md, section 16). Each test failed before its fix."""

from __future__ import annotations

import json
import tracemalloc

from rulecraft.runtime.replay import replay


def _pig_log(tmp_path):
    from rulecraft.bundled import resolve
    from rulecraft.loader import load_ruleset
    from rulecraft.runtime.game import Game
    from rulecraft.runtime.gamelog import log_header

    game = Game(load_ruleset(resolve("pig")).ruleset, 2, 3)
    return json.dumps(log_header("pig", game, {}, None)) + "\n"


# ------------------------------------------------------------------------------------------------- lost saves, logs

def test_a_log_of_many_tiny_records_is_never_held_whole(tmp_path):
    """A log of 50 MB of `{"type":"x"}` lines: replay read every record into a dict before looking at the second one
    (3.8 million dicts: a MemoryError, exit 3, under the corpus's 1 GiB; past 1 GB without it). The records are now
    read one at a time: memory in proportion to the file's bytes, the verdict the same."""
    log = tmp_path / "tiny.log"
    size = 200_000
    log.write_text(_pig_log(tmp_path) + '{"type":"x"}\n' * size)
    tracemalloc.start()
    try:
        report = replay(str(log))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not report.ok and report.line == 2 and "unknown record type 'x'" in report.message
    assert peak < 4 * log.stat().st_size, peak  # the text and its bytes; was 24 MB for 2.6 MB (a dict a record)
