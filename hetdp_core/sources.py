"""The sources behind the pages, cited by authors, title, venue and arXiv identifier (where one
exists); each page's spec names its sources (``PageSpec.sources``). The app's home page and the README
list these; nothing user-facing points to files
outside the repository."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Source", "SOURCES"]


@dataclass(frozen=True)
class Source:
    key: str
    authors: str
    title: str
    venue: str
    arxiv: str | None

    @property
    def pages(self) -> tuple[str, ...]:
        """The titles of the pages built on this source (each page's spec names its sources)."""
        from .registry import specs

        return tuple(s.title for s in specs() if self.key in s.sources)

    def citation(self) -> str:
        ax = f", arXiv:{self.arxiv}" if self.arxiv else ""
        return f"{self.authors}, *{self.title}*, {self.venue}{ax}"


SOURCES = (
    Source(
        "bcdp",
        "M. Aliakbarpour, S. Chaudhuri, T. A. Courtade, A. Fallah, M. I. Jordan",
        "Enhancing Feature-Specific Data Protection via Bayesian Coordinate Differential Privacy",
        "AISTATS 2025 (PMLR 258)",
        "2410.18404",
    ),
    Source(
        "hetero",
        "S. Chaudhuri, T. A. Courtade",
        "Empirical Mean and Frequency Estimation Under Heterogeneous Privacy: A Worst-Case Analysis",
        "preprint, 2024",
        "2407.11274",
    ),
    Source(
        "groupwise",
        "A. Azize",
        "Open problem: better privacy guarantees for larger groups",
        "open-problem note, July 2023",
        None,
    ),
    Source(
        "mat4376",
        "R. Kulik",
        "MAT 4376 Foundations of Data Privacy",
        "lectures 17–20, University of Ottawa course notes",
        None,
    ),
)
