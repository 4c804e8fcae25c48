"""A library folder is untrusted input: the app opens on a forged ``annotations.json`` (a status
that is no status, a star of 10**30, tags that are a string, a value that is no record, an undo
entry that is no entry), shows the papers, says once what it cannot read, and triages the forged
paper without a crash."""

from __future__ import annotations

import json

from store import Library
from store.annotations.journal import ANN, HIST
from store.records import RecordKey

from .driving import cur, screen, settle


def forged_library(folder) -> Library:
    lib = Library.open(folder)
    first, second = (p.id for p in lib.corpus.papers[:2])
    lib.marks.set_star([second], 1)
    lib.store.compact()
    data = json.loads(lib.annotations_path.read_bytes())
    data[ANN][str(RecordKey(first).doc_id)] = {"paper_id": first, "status": "read\x1b[2J", "star": 10**30,
                                         "tags": ["keepme", 5], "note": 7}
    data[ANN]["12345"] = [1, 2]  # no record at all
    data[HIST]["9"] = "undo\x1b]0;pwned\x07"  # no undo entry
    lib.annotations_path.write_text(json.dumps(data))
    return Library.open(folder)


async def test_the_app_opens_on_forged_records_and_triages_them(tmp_path, make):
    lib = forged_library(tmp_path / "lib")
    app = make(lib)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert screen(app).results.border_title.startswith("35 / 35")
        pid, ann = cur(app)
        assert pid == lib.corpus.papers[0].id and (ann.status, ann.star, ann.tags, ann.note) == (
            "unread", 0, ["keepme"], "")
        said = [n.message for n in app._notifications]
        assert sum("papersift cannot read" in m for m in said) == 1, said
        assert not any("\x1b" in m for m in said)
        await pilot.press("r")
        await settle(pilot)
        assert app.library.annotation(pid).status == "read" and app.library.annotation(pid).tags == ["keepme"]
        await pilot.press("z")  # undo passes over the entry that is none
        await settle(pilot)
        assert app.library.annotation(pid).status == "unread"
        assert not any("\x1b" in n.message for n in app._notifications)
