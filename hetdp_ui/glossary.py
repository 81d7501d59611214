"""Words for people who are not specialists: full names of the methods (acronym in brackets) and a
one-line glossary entry each. Identifiers stay in the core and the URL; these labels are the UI's."""

from __future__ import annotations

#: per-user methods: identifier -> (full name, one line)
METHODS = {
    "CP": (
        "Weights for data-dependent demands, tuned for the worst-case error",
        "optimal weights when a user's demand may depend on their value, minimising the error bound that "
        "holds with probability 1 − β",
    ),
    "CE": (
        "Weights for data-dependent demands, tuned for the mean squared error",
        "optimal weights when demands may depend on values, minimising the expected squared error",
    ),
    "UP": (
        "Weights for independent demands, tuned for the worst-case error",
        "optimal weights when demands are unrelated to the values, minimising the error bound that holds "
        "with probability 1 − β",
    ),
    "UE": (
        "Weights for independent demands, tuned for the mean squared error",
        "optimal weights when demands are unrelated to the values, minimising the expected squared error",
    ),
    "A": (
        "Setting-agnostic heuristic weights",
        "a simple compromise between bias and noise that needs no assumption about the demands",
    ),
    "CT": (
        "Fast variant of the data-dependent worst-case weights",
        "like CP with a simpler, slightly looser objective (for very many users)",
    ),
    "UT": (
        "Fast variant of the independent worst-case weights",
        "like UP with a simpler, slightly looser objective (for very many users)",
    ),
    "UNI": ("Uniform weights", "everyone counts the same; the noise is set by the strictest demand"),
    "PROP": ("Weights proportional to the demands", "each user counts in proportion to their ε"),
    "SM": (
        "Sampling mechanism",
        "keeps each user with a probability that matches their demand, then releases "
        "the sample at one common level (Jorgensen et al., ICDE 2015)",
    ),
    "LDP": ("Local randomisation baseline", "each user adds noise to their own value before sending it"),
}

#: other terms the per-user page uses
TERMS = {
    "PAC error": "the error that is not exceeded in a share 1 − β of releases (e.g. 95 %)",
    "MSE": "mean squared error: the average of the squared error over releases",
    "ℓ∞ error": "for frequencies, the largest error over all bins",
    "free privacy": "a user who gets a smaller ε than they asked for (better protected) at no cost",
    "ε (epsilon)": "a privacy level; smaller is more private; ∞ means the value is public",
}


def method_label(code: str) -> str:
    """'Uniform weights (UNI)': the full name with the acronym in brackets."""
    name = METHODS.get(code, (code, ""))[0]
    return f"{name} ({code})" if name != code else code


def glossary_markdown(codes=None) -> str:
    """A bullet list: each method's full name, acronym and one line, then the terms."""
    codes = list(METHODS) if codes is None else list(codes)
    lines = [f"- **{method_label(c)}** — {METHODS[c][1]}." for c in codes if c in METHODS]
    lines += [f"- **{t}** — {d}." for t, d in TERMS.items()]
    return "\n".join(lines)
