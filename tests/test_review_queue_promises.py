"""The review queue's own promises (`review.queue`): what a query accepts, in its own words, and
the pages of an empty queue. The paging of a full store is in test_review_queue.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from forsy.errors import InputError
from forsy.review.queue import MAX_PER_PAGE, QueueQuery, queue_page
from forsy.store import open_store


def test_a_page_holds_1_to_500_drafts_and_pages_count_from_1() -> None:
    assert (QueueQuery(per_page=1).per_page, QueueQuery(per_page=MAX_PER_PAGE).per_page) == (1, 500)
    for n in (0, 501):
        with pytest.raises(InputError) as e:
            QueueQuery(per_page=n)
        assert e.value.message == f"a page holds 1 to 500 drafts, not {n}"
    with pytest.raises(InputError) as e:
        QueueQuery(page=0)
    assert e.value.message == "pages are numbered from 1"


def test_an_empty_queue_is_one_empty_page(tmp_path: Path) -> None:
    st = open_store(f"sqlite:///{tmp_path / 's.db'}")
    try:
        pg = queue_page(st, QueueQuery())
        assert (pg.rows, pg.total, pg.page, pg.pages) == ([], 0, 1, 1)
        with pytest.raises(InputError) as e:
            queue_page(st, QueueQuery(page=2))
        assert e.value.message == "there are 1 page(s) of 0 draft(s); no page 2"
    finally:
        st.close()
