"""phpBB's pagination: the page links under a list of posts, topics or PMs."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class PageItem:
    kind: str  # prev / current / ellipsis / next / page
    number: int | None
    url: str


@dataclass(frozen=True)
class Pagination:
    items: tuple[PageItem, ...]
    current: int
    total: int
    per_page: int
    base_url: str

    @property
    def jump(self) -> bool:
        return self.total > 6


def page_url(base: str, page: int, per_page: int) -> str:
    return base if page <= 1 else f"{base}&start={(page - 1) * per_page}"


def pagination(base: str, items: int, per_page: int, start: int, *, reverse: bool = False) -> Pagination:
    """phpBB's pagination::generate_templatepagination(): previous, pages with at most one ellipsis
    on each side of the current page (seven links around it), next."""
    total = max(1, math.ceil(items / per_page))
    on_page = start // per_page + 1
    out: list[PageItem] = []
    if total > 1:
        if reverse:  # the topic rows of viewforum: the last pages
            first_shown, last_shown = (total - 4 if total > 5 else 1), total
        else:
            first_shown = min(max(1, on_page - 3), total - 4) if total > 5 else 1
            last_shown = max(min(total, on_page + 3), 5) if total > 5 else total
        if on_page != 1 and not reverse:
            out.append(PageItem("prev", None, page_url(base, on_page - 1, per_page)))
        at = 1
        while at <= total:
            ellipsis = (at == 2 and first_shown > 2) or (at == total - 1 and last_shown < total - 1)
            kind = "current" if at == on_page and not reverse else "ellipsis" if ellipsis else "page"
            out.append(PageItem(kind, at, page_url(base, at, per_page)))
            if at == 2 and at < first_shown - 1:
                at = first_shown
            elif at == last_shown and last_shown < total - 1:
                at = total - 1
            else:
                at += 1
        if on_page != total and not reverse:
            out.append(PageItem("next", None, page_url(base, on_page + 1, per_page)))
    return Pagination(tuple(out), on_page, total, per_page, base)


def validate_start(start: int, per_page: int, items: int) -> int:
    if start < 0:
        return 0
    if start >= items:
        return max(0, (items - 1) // per_page * per_page)
    return start
