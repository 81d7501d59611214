"""The sources behind the pages, cited by authors, title, venue and arXiv identifier (where one
exists). The app's home page and the README list these; nothing user-facing points to files
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
    pages: tuple[str, ...]

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
        ("Feature privacy", "BCDP guarantee lab", "Private regression"),
    ),
    Source(
        "hetero",
        "S. Chaudhuri, T. A. Courtade",
        "Empirical Mean and Frequency Estimation Under Heterogeneous Privacy: A Worst-Case Analysis",
        "preprint, 2024",
        "2407.11274",
        ("Per-user privacy",),
    ),
    Source(
        "groupwise",
        "A. Azize",
        "Open problem: better privacy guarantees for larger groups",
        "open-problem note, July 2023",
        None,
        ("Group-wise zCDP",),
    ),
    Source(
        "mat4376",
        "R. Kulik",
        "MAT 4376 Foundations of Data Privacy",
        "lectures 17–20, University of Ottawa course notes",
        None,
        ("Mechanism lab", "DP-SGD schedules"),
    ),
)
