"""Two builds of one book folder never overlap: tools/build_book.py holds a lock while it builds.

jupyter-cache fails when two builds create the same cache folder at once (`FileExistsError`), so
whatever starts them (two test workers, `make book` beside `make test`), builds of one folder must
take turns. A stand-in for `jupyter-book` records when each build starts and ends.
"""

import sys
import threading

from notebook_paths import load_tool

# Records its start and end, with a pause between in which an unlocked second build would start.
FAKE_JUPYTER_BOOK = """#!{python}
import sys, time
with open({log!r}, "a") as log:
    log.write("start\\n")
time.sleep(0.5)
with open({log!r}, "a") as log:
    log.write("end\\n")
"""


def test_builds_of_one_folder_take_turns(tmp_path, monkeypatch):
    build_book = load_tool("build_book")
    log = tmp_path / "builds.log"
    fake = tmp_path / "jupyter-book"
    fake.write_text(FAKE_JUPYTER_BOOK.format(python=sys.executable, log=str(log)))
    fake.chmod(0o755)
    monkeypatch.setattr(build_book, "jupyter_book", lambda: str(fake))
    folder = tmp_path / "book"
    (folder).mkdir()
    (folder / "_config.yml").write_text("title: a book\n")
    statuses = []
    builds = [
        threading.Thread(target=lambda: statuses.append(build_book.build(folder))) for _ in range(3)
    ]
    for build in builds:
        build.start()
    for build in builds:
        build.join()
    assert statuses == [0, 0, 0]
    assert log.read_text().split() == ["start", "end"] * 3


def test_a_folder_without_a_book_is_refused(tmp_path, capsys):
    assert load_tool("build_book").main([str(tmp_path)]) == 2
    assert "has no _config.yml" in capsys.readouterr().err
