"""Threads under their own names where the system shows threads (``tablecore.threadnames``):
what ``top -H`` and the benches' CPU by thread read."""

from __future__ import annotations

import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablecore import threadnames
from tablecore.threadnames import LIMIT, name_this_thread, os_name

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="thread names read from /proc (Linux)")


def shown(native_id: int) -> str:
    """The name the system shows for a thread of this process."""
    return Path(f"/proc/self/task/{native_id}/comm").read_text().rstrip("\n")


def test_a_long_name_keeps_its_first_fifteen_bytes():
    assert os_name("table-WHEEL-MOCK_0") == b"table-WHEEL-MOC"
    assert os_name("studio-F3-01") == b"studio-F3-01"


def test_a_name_beyond_ascii_is_never_cut_inside_a_character():
    assert os_name("ab" + "桌" * 5) == ("ab" + "桌" * 4).encode()  # (17 bytes: the fifth would be cut)
    assert os_name("桌" * 5) == ("桌" * 5).encode()  # (15 bytes exactly)


@given(st.text())
def test_any_name_becomes_at_most_fifteen_bytes_of_utf8_that_begin_it(name):
    got = os_name(name)
    assert len(got) <= LIMIT
    assert name.encode("utf-8", "replace").startswith(got)
    got.decode("utf-8")  # (whole characters only)


@linux_only
def test_a_thread_shows_its_python_name():
    seen = {}

    def body():
        seen["named"] = name_this_thread()
        seen["shown"] = shown(threading.get_native_id())

    t = threading.Thread(target=body, name="table-F3-01_0")
    t.start()
    t.join()
    assert seen == {"named": True, "shown": "table-F3-01_0"}


@linux_only
def test_a_thread_made_by_the_helper_is_named_before_its_target_runs_and_gets_its_arguments():
    seen = {}

    def reader(a, b):
        seen["shown"], seen["args"] = shown(threading.get_native_id()), (a, b)

    t = threadnames.thread(reader, "evdev-shoe-reader-of-a-long-name", args=(1, "two"))
    assert t.daemon and t.name == "evdev-shoe-reader-of-a-long-name"
    t.start()
    t.join()
    assert seen == {"shown": "evdev-shoe-read", "args": (1, "two")}


@linux_only
def test_a_pools_thread_is_named_by_the_initializer():
    with ThreadPoolExecutor(1, thread_name_prefix="journal-mark", initializer=name_this_thread) as pool:
        assert pool.submit(lambda: shown(threading.get_native_id())).result(10) == "journal-mark_0"


@linux_only
def test_the_calling_threads_own_name_is_left_alone_by_another_thread_naming_itself():
    mine = shown(threading.get_native_id())
    t = threadnames.thread(lambda: None, "other-thread")
    t.start()
    t.join()
    assert shown(threading.get_native_id()) == mine
