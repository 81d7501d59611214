"""A process and its descendants, read from Linux ``/proc``: what a stopped export kills
(:mod:`hetdp_ui.static_export`) and what the load tools measure and the serving tests look for."""

from __future__ import annotations

import os


def process_tree(pid: int) -> list[int]:
    """``pid`` and every live descendant of it, parents before their children (``/proc``'s parent
    links; on a system without ``/proc``, ``[pid]``). A process whose parent died belongs to init from
    then on: read the tree before killing a parent."""
    kids: dict[int, list[int]] = {}
    try:
        entries = [d for d in os.listdir("/proc") if d.isdigit()]
    except OSError:
        return [pid]
    for d in entries:
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])  # the name, in (), may hold spaces
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out
