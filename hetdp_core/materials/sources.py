"""The works the pages are built on, cited by authors, title, venue and arXiv identifier (where one
exists). A page names its own in its spec (``PageSpec.sources``): one of the citations below, which
several pages share, or a :class:`Source` declared in its own core module. The app's home page, the
README's and the documentation's lists are made from the pages' specs
(:func:`hetdp_core.framework.registry.cited_sources`; ``make docs`` writes the lists, a test checks them);
nothing user-facing points to files outside the repository."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..framework._validate import InputError

__all__ = ["Source", "BCDP_PAPER", "HETERO_PAPER", "GROUPWISE_NOTE", "MAT4376_NOTES"]


@dataclass(frozen=True)
class Source:
    """One work: ``authors``, ``title``, ``venue`` (with the year) and its ``arxiv`` identifier (None:
    not on arXiv)."""

    authors: str
    title: str
    venue: str
    arxiv: str | None = None

    def __post_init__(self):
        empty = [n for n in ("authors", "title", "venue") if not str(getattr(self, n)).strip()]
        if empty:
            raise InputError(f"Source: {', '.join(empty)} must be given (a source is cited by authors, title, venue).")
        if self.arxiv is not None and not re.fullmatch(r"\d{4}\.\d{4,5}", self.arxiv):
            raise InputError(f"Source.arxiv must be an arXiv identifier like 2410.18404, or None; got {self.arxiv!r}.")

    def citation(self) -> str:
        """The citation in Markdown: authors, *title*, venue, arXiv identifier."""
        ax = f", arXiv:{self.arxiv}" if self.arxiv else ""
        return f"{self.authors}, *{self.title}*, {self.venue}{ax}"


BCDP_PAPER = Source(
    "M. Aliakbarpour, S. Chaudhuri, T. A. Courtade, A. Fallah, M. I. Jordan",
    "Enhancing Feature-Specific Data Protection via Bayesian Coordinate Differential Privacy",
    "AISTATS 2025 (PMLR 258)",
    "2410.18404",
)
HETERO_PAPER = Source(
    "S. Chaudhuri, T. A. Courtade",
    "Empirical Mean and Frequency Estimation Under Heterogeneous Privacy: A Worst-Case Analysis",
    "preprint, 2024",
    "2407.11274",
)
GROUPWISE_NOTE = Source(
    "A. Azize", "Open problem: better privacy guarantees for larger groups", "open-problem note, July 2023"
)
MAT4376_NOTES = Source(
    "R. Kulik", "MAT 4376 Foundations of Data Privacy", "lectures 17–20, University of Ottawa course notes"
)
